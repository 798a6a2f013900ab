// The built-in authorization server's protocol (OAUTH_MODE=builtin), our own code
// on the SDK's wire schemas: /authorize (RFC 6749 with PKCE S256 only, RFC 8707
// resource, RFC 9207 iss), /token (authorization_code, refresh_token), /register
// (RFC 7591), /revoke (RFC 7009) and the RFC 8414 metadata. Storage, consent and
// token minting are in grants.ts, clients.ts and consent.ts. The SDK v2 keeps
// only resource-server helpers; v1's authorization server is frozen, so the
// protocol is here, where its tests are.
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import cors from "cors";
import express, { type RequestHandler, type Response, type Router } from "express";
import * as z from "zod/v4";
import type { AppDeps } from "../app-deps.js";
import { requestLimit } from "../mcp-endpoint/auth.js";
import { OAuthClientMetadataSchema, type OAuthClientInformationFull, OAuthError, OAuthErrorCode, type OAuthTokens } from "../mcp-sdk/index.js";
import { issueText } from "../text.js";
import { endpoint, ENDPOINTS, oauthError, onlyMethods } from "./protocol.js";
import { hashSecret, newSecret } from "./secrets.js";

/** What the authorization request asked for, once checked: the consent page's input. */
export interface AuthorizationRequest {
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
}

/** The storage and consent behind the endpoints (provider.ts). */
export interface AuthorizationServerProvider {
  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined>;
  /** Stores a registered client (its secret hashed) and returns it as registered. */
  registerClient(client: OAuthClientInformationFull): Promise<OAuthClientInformationFull>;
  /** Answers the authorization request: the consent page. */
  authorize(client: OAuthClientInformationFull, request: AuthorizationRequest, res: Response): Promise<void>;
  /** The PKCE challenge the code was issued for (a replayed code is refused here, its grant revoked). */
  challengeForCode(clientId: string, code: string): Promise<string>;
  exchangeCode(clientId: string, code: string, redirectUri: string | undefined, resource: URL | undefined): Promise<OAuthTokens>;
  exchangeRefresh(clientId: string, refreshToken: string, resource: URL | undefined): Promise<OAuthTokens>;
  revoke(clientId: string, token: string): Promise<void>;
}

export interface AuthorizationServerOptions {
  issuer: URL;
  /** The one resource tokens are minted for (the OAuth MCP URL). */
  resource: string;
  /** Requests per client address per minute at each endpoint. */
  requestsPerMinute: number;
}

/** A registered confidential client's secret stays valid this long; then it registers again. */
const CLIENT_SECRET_TTL_SECONDS = 30 * 24 * 3600;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** RFC 7636: a verifier is 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** Parsed form fields, or every problem with them in one message. */
function parse<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw oauthError(OAuthErrorCode.InvalidRequest, `${parsed.error.issues.map((i) => issueText(i, what)).join("; ")}.`);
}

/**
 * RFC 8252 §7.3: a native app's loopback redirect URI may come back on any port
 * (the OS gives it one); everything else about it, and every other URI, must
 * match what was registered exactly.
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  let asked: URL, known: URL;
  try {
    asked = new URL(requested);
    known = new URL(registered);
  } catch {
    return false;
  }
  if (!LOOPBACK_HOSTS.has(asked.hostname) || !LOOPBACK_HOSTS.has(known.hostname)) return false;
  return asked.protocol === known.protocol && asked.hostname === known.hostname && asked.pathname === known.pathname && asked.search === known.search;
}

/** Where an authorization error goes once the redirect URI is known to be the client's: back to it (RFC 6749 §4.1.2.1, with iss: RFC 9207). */
function errorRedirect(redirectUri: string, error: OAuthError, state: string | undefined, issuer: string): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error.code);
  url.searchParams.set("error_description", error.message);
  if (state) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.href;
}

const ClientAndRedirect = z.object({ client_id: z.string(), redirect_uri: z.string().refine((v) => URL.canParse(v), "must be a URL").optional() });
const AuthorizationParams = z.object({
  response_type: z.literal("code"),
  code_challenge: z.string().min(1),
  code_challenge_method: z.literal("S256", { error: "must be S256 (PKCE with SHA-256; plain is not accepted)" }),
  scope: z.string().optional(),
  state: z.string().optional(),
  resource: z.string().refine((v) => URL.canParse(v), "must be a URL").optional(),
});
const ClientCredentials = z.object({ client_id: z.string(), client_secret: z.string().optional() });
const CodeGrant = z.object({
  code: z.string(),
  code_verifier: z.string().regex(CODE_VERIFIER, "must be 43 to 128 letters, digits or -._~ (RFC 7636)"),
  redirect_uri: z.string().optional(),
  resource: z.string().refine((v) => URL.canParse(v), "must be a URL").optional(),
});
const RefreshGrant = z.object({ refresh_token: z.string(), resource: z.string().refine((v) => URL.canParse(v), "must be a URL").optional() });
const Revocation = z.object({ token: z.string(), token_type_hint: z.string().optional() });

const sha256Base64Url = (text: string) => createHash("sha256").update(text).digest("base64url");
const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function authorizationServer(deps: AppDeps, provider: AuthorizationServerProvider, options: AuthorizationServerOptions): Router {
  const issuer = options.issuer.href;
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: "16kb" });
  /** Each endpoint's own count per address (a client registering does not use up its token requests). */
  const limit = (): RequestHandler[] => {
    const limited = requestLimit(deps, {
      limit: options.requestsPerMinute,
      metricLabel: "oauth",
      refuse: (res) => res.status(429).json({ error: OAuthErrorCode.TooManyRequests, error_description: "Too many requests from this address; wait a minute." }),
    });
    return limited ? [limited] : [];
  };
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  };

  /** Client authentication at /token and /revoke: client_secret_post, or none for a public client. */
  const authenticateClient = async (body: unknown): Promise<OAuthClientInformationFull> => {
    const { client_id, client_secret } = parse(ClientCredentials, body, "the request");
    const client = await provider.getClient(client_id);
    if (!client) throw oauthError(OAuthErrorCode.InvalidClient, "Unknown client_id. Register the client first (POST /register) or use a client ID metadata document URL.");
    if (client.client_secret) {
      // Stored hashed: the one sent is hashed and the hashes compared.
      if (!client_secret) throw oauthError(OAuthErrorCode.InvalidClient, "This client has a secret: send client_secret.");
      if (!sameSecret(hashSecret(client_secret), client.client_secret)) throw oauthError(OAuthErrorCode.InvalidClient, "Wrong client_secret.");
      if (client.client_secret_expires_at && client.client_secret_expires_at < Math.floor(Date.now() / 1000)) {
        throw oauthError(OAuthErrorCode.InvalidClient, "The client secret has expired; register the client again.");
      }
    }
    return client;
  };

  router.use(ENDPOINTS.authorize, onlyMethods("GET", "POST"), form, ...limit(), noStore);
  router.all(
    ENDPOINTS.authorize,
    endpoint(async (req, res) => {
      const fields = req.method === "POST" ? req.body : req.query;
      // Until the client and its redirect URI are known, errors are answered here: never redirected to a URI nobody registered.
      const { client_id, redirect_uri } = parse(ClientAndRedirect, fields, "the authorization request");
      const client = await provider.getClient(client_id);
      if (!client) throw oauthError(OAuthErrorCode.InvalidClient, "Unknown client_id. Register the client first (POST /register) or use a client ID metadata document URL.");
      let redirectUri: string;
      if (redirect_uri !== undefined) {
        if (!client.redirect_uris.some((registered) => redirectUriMatches(redirect_uri, registered))) {
          throw oauthError(OAuthErrorCode.InvalidRequest, "redirect_uri is not one this client registered.");
        }
        redirectUri = redirect_uri;
      } else if (client.redirect_uris.length === 1) {
        redirectUri = client.redirect_uris[0]!;
      } else {
        throw oauthError(OAuthErrorCode.InvalidRequest, "This client registered several redirect URIs: send redirect_uri.");
      }
      // From here on, errors go back to the client's redirect URI.
      const state = typeof (fields as { state?: unknown }).state === "string" ? ((fields as { state: string }).state) : undefined;
      try {
        const params = parse(AuthorizationParams, fields, "the authorization request");
        // RFC 8707: one resource is served; a request for another is refused.
        if (params.resource !== undefined && new URL(params.resource).href !== options.resource) {
          throw oauthError("invalid_target", `This server issues tokens only for ${options.resource}, not ${params.resource}.`);
        }
        await provider.authorize(client, { redirectUri, codeChallenge: params.code_challenge, state: params.state }, res);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        res.redirect(302, errorRedirect(redirectUri, error, state, issuer));
      }
    }),
  );

  router.use([ENDPOINTS.token, ENDPOINTS.revoke, ENDPOINTS.register], cors(), onlyMethods("POST", "OPTIONS"));
  router.post(
    ENDPOINTS.token,
    form,
    ...limit(),
    noStore,
    endpoint(async (req, res) => {
      const client = await authenticateClient(req.body);
      const grantType = (req.body as { grant_type?: unknown }).grant_type;
      if (grantType === "authorization_code") {
        const grant = parse(CodeGrant, req.body, "the token request");
        const challenge = await provider.challengeForCode(client.client_id, grant.code);
        if (!sameSecret(sha256Base64Url(grant.code_verifier), challenge)) throw oauthError(OAuthErrorCode.InvalidGrant, "code_verifier does not match the code's challenge.");
        res.json(await provider.exchangeCode(client.client_id, grant.code, grant.redirect_uri, grant.resource ? new URL(grant.resource) : undefined));
      } else if (grantType === "refresh_token") {
        const grant = parse(RefreshGrant, req.body, "the token request");
        res.json(await provider.exchangeRefresh(client.client_id, grant.refresh_token, grant.resource ? new URL(grant.resource) : undefined));
      } else {
        throw oauthError(OAuthErrorCode.UnsupportedGrantType, `grant_type must be authorization_code or refresh_token${typeof grantType === "string" ? `, not ${JSON.stringify(grantType.slice(0, 40))}` : ""}.`);
      }
    }),
  );

  router.post(
    ENDPOINTS.register,
    express.json({ limit: "16kb" }),
    ...limit(),
    noStore,
    endpoint(async (req, res) => {
      const parsed = OAuthClientMetadataSchema.safeParse(req.body);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => issueText(i, "the body"));
        throw oauthError(
          "invalid_client_metadata",
          `${problems.join("; ")}. Send JSON client metadata (RFC 7591) with at least redirect_uris, e.g. {"redirect_uris":["http://127.0.0.1:33418/callback"],"token_endpoint_auth_method":"none"}.`,
        );
      }
      const metadata = parsed.data;
      const issuedAt = Math.floor(Date.now() / 1000);
      const confidential = metadata.token_endpoint_auth_method !== "none";
      const client: OAuthClientInformationFull = {
        ...metadata,
        client_id: randomUUID(),
        client_id_issued_at: issuedAt,
        ...(confidential ? { client_secret: newSecret(), client_secret_expires_at: issuedAt + CLIENT_SECRET_TTL_SECONDS } : {}),
      };
      res.status(201).json(await provider.registerClient(client));
    }),
  );

  router.post(
    ENDPOINTS.revoke,
    form,
    ...limit(),
    noStore,
    endpoint(async (req, res) => {
      const client = await authenticateClient(req.body);
      const { token } = parse(Revocation, req.body, "the revocation request");
      await provider.revoke(client.client_id, token);
      res.json({});
    }),
  );
  return router;
}
