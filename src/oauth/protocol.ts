// The authorization server's answers as the OAuth RFCs shape them: its error
// objects (and the one answer while the database is away), the methods each
// endpoint takes, its metadata (RFC 8414) and how metadata documents are served.
import cors from "cors";
import type { Request, RequestHandler, Response } from "express";
import { classifyDatabaseError } from "../db/core/classify.js";
import { DATABASE_RETRY_AFTER_SECONDS } from "../mcp-endpoint/json-rpc.js";
import { OAuthError, OAuthErrorCode, type OAuthMetadata } from "../mcp-sdk/index.js";

export const ENDPOINTS = { authorize: "/authorize", token: "/token", register: "/register", revoke: "/revoke" } as const;

/** Error codes of RFC 8707 (invalid_target) and RFC 7591 (invalid_client_metadata), beside RFC 6749's. */
type ExtensionErrorCode = "invalid_target" | "invalid_client_metadata";

export const oauthError = (code: OAuthErrorCode | ExtensionErrorCode, message: string) => new OAuthError(code, message);

export function authorizationServerMetadata(issuer: URL): OAuthMetadata & { client_id_metadata_document_supported: boolean } {
  const at = (path: string) => new URL(path, issuer).href;
  return {
    issuer: issuer.href,
    authorization_endpoint: at(ENDPOINTS.authorize),
    token_endpoint: at(ENDPOINTS.token),
    registration_endpoint: at(ENDPOINTS.register),
    revocation_endpoint: at(ENDPOINTS.revoke),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_post", "none"],
    revocation_endpoint_auth_methods_supported: ["client_secret_post", "none"],
    scopes_supported: [],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/** The JSON error answer: 400 for what the request got wrong, 503 while the database is away; anything else is thrown on (the app answers 500). */
function sendError(res: Response, error: unknown): void {
  if (res.headersSent) return;
  res.setHeader("Cache-Control", "no-store");
  if (error instanceof OAuthError) {
    res.status(error.code === OAuthErrorCode.ServerError ? 500 : 400).json(error.toResponseObject());
    return;
  }
  const known = classifyDatabaseError(error);
  if (known?.reason === "database_unavailable") {
    res.status(503).setHeader("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS)).json({ error: OAuthErrorCode.TemporarilyUnavailable, error_description: known.message });
    return;
  }
  throw error;
}

/** An endpoint's handler: its errors answered as OAuth errors (sendError), anything else to the app's error handler. */
export const endpoint =
  (handle: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  async (req, res, next) => {
    try {
      await handle(req, res);
    } catch (error) {
      try {
        sendError(res, error);
      } catch (unknown) {
        next(unknown);
      }
    }
  };

export const onlyMethods =
  (...methods: string[]): RequestHandler =>
  (req, res, next) => {
    if (methods.includes(req.method)) return next();
    res.status(405).set("Allow", methods.join(", ")).json({ error: OAuthErrorCode.MethodNotAllowed, error_description: `${req.method} is not allowed here; use ${methods.join(" or ")}.` });
  };

/** A metadata document (RFC 8414, RFC 9728): GET from anywhere (CORS), nothing else. */
export function metadataDocument(document: object): RequestHandler[] {
  return [
    cors(),
    onlyMethods("GET", "OPTIONS"),
    (_req, res) => {
      res.json(document);
    },
  ];
}
