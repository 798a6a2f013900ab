// OAuth for hosted MCP clients, mounted only when OAUTH_MODE is set. It adds a
// second MCP path, /oauth/mcp, whose 401 announces the protected-resource
// metadata (RFC 9728). /mcp is left exactly as it was: clients that find OAuth
// discovery stop sending their configured static header, so the static path
// must never advertise it.
import express, { type Express, type RequestHandler } from "express";
import type { AppDeps } from "../app-deps.js";
import type { Config } from "../config.js";
import { createOAuthMetadata, isInvalidToken, mcpAuthRouter, metadataHandler, OAuthClientMetadataSchema, type OAuthTokenVerifier } from "../mcp-sdk/index.js";
import type { VerifierDeps } from "../auth/verifier.js";
import { bearerAuth, bearerToken, failedAuthLimit } from "../http-shared/auth.js";
import { methodNotAllowed } from "../http-shared/mcp-route.js";
import { consentRouter } from "./consent.js";
import { createJwtVerifierFactory } from "./external.js";
import { createOAuthProvider } from "./provider.js";
import { issueText } from "../text.js";
import { hashSecret } from "./secrets.js";
import { createGrantTokenVerifier } from "./verifier.js";

const OAUTH_MCP_PATH = "/oauth/mcp";
const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${OAUTH_MCP_PATH}`;

/** The connector URL hosted clients are given, when OAuth is on. */
export function oauthMcpUrl(config: Config): string | undefined {
  if (config.oauth.mode === "off" || !config.publicUrl) return undefined;
  return new URL(OAUTH_MCP_PATH, config.publicUrl).href;
}

/** What /mcp runs around its authenticator; /oauth/mcp runs the same. */
interface OAuthMountOptions {
  guards: RequestHandler[];
  /** Answer CORS preflight (ALLOWED_ORIGINS is set). */
  preflight: boolean;
  /**
   * /mcp's chain with another token check (and failed-attempt limit): the same
   * guards, the same per-token and per-agent limits (one queue per agent across
   * both paths), the same endpoint.
   */
  mcpRoute(authenticate: RequestHandler, failedAttempts: RequestHandler | undefined): RequestHandler[];
}

/**
 * The OAuth MCP endpoint: /mcp's chain and POST handler (same tools, same
 * agents) with another token check. The failed-attempt limit checks tokens with
 * that same verifier: over the limit, a valid access token (or an external
 * identity provider's JWT, which /mcp's agent-token lookup would not know) still
 * goes through.
 */
function mountOAuthMcp(app: Express, deps: AppDeps, options: OAuthMountOptions, createVerifier: (d: VerifierDeps) => OAuthTokenVerifier, resourceMetadataUrl: string): void {
  const { guards } = options;
  const authenticate = bearerAuth(deps, { resourceMetadataUrl, createVerifier });
  const checker = createVerifier(deps);
  const failureLimit = failedAuthLimit(deps, {
    async isValid(req) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) return false;
      try {
        await checker.verifyAccessToken(token);
        return true;
      } catch (error) {
        if (isInvalidToken(error)) return false;
        throw error;
      }
    },
  });
  if (options.preflight) app.options(OAUTH_MCP_PATH, ...guards);
  app.post(OAUTH_MCP_PATH, ...options.mcpRoute(authenticate, failureLimit));
  app.all(OAUTH_MCP_PATH, ...guards, methodNotAllowed);
}

export function mountOAuth(app: Express, deps: AppDeps, options: OAuthMountOptions): void {
  const { config } = deps;
  const resource = oauthMcpUrl(config)!;
  const resourceMetadataUrl = new URL(PROTECTED_RESOURCE_METADATA_PATH, config.publicUrl).href;

  if (config.oauth.mode === "external") {
    const external = {
      issuer: config.oauth.issuer!,
      audience: config.oauth.audience ?? resource,
      agentClaim: config.oauth.agentClaim,
      jwksUrl: config.oauth.jwksUrl,
      humanAgents: config.oauth.humanAgents,
    };
    app.use(
      PROTECTED_RESOURCE_METADATA_PATH,
      metadataHandler({ resource, authorization_servers: [external.issuer], resource_name: "agent-memory", bearer_methods_supported: ["header"] }),
    );
    mountOAuthMcp(app, deps, options, createJwtVerifierFactory(external), resourceMetadataUrl);
    return;
  }

  const issuerUrl = new URL(config.publicUrl!);
  const createVerifier = (d: Parameters<typeof createGrantTokenVerifier>[0]) => createGrantTokenVerifier(d, resource);
  const provider = createOAuthProvider(deps, { issuer: issuerUrl.href, resource, verifier: createVerifier(deps) });
  const limit = { windowMs: 60_000, max: config.oauth.rateLimitPerMinute };

  // The SDK's metadata plus what it does not state itself: that client ID
  // metadata documents are accepted. Mounted first, so it is the one served.
  const metadata = { ...createOAuthMetadata({ provider, issuerUrl, scopesSupported: [] }), client_id_metadata_document_supported: true };
  app.use("/.well-known/oauth-authorization-server", metadataHandler(metadata));
  // Client secrets are stored hashed; the SDK compares the stored value with the
  // one sent, so the one sent is hashed before the SDK sees it.
  app.use(["/token", "/revoke"], express.urlencoded({ extended: false, limit: "16kb" }), hashClientSecret);
  app.post("/register", express.json({ limit: "16kb" }), readableMetadataErrors);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl: new URL(resource),
      resourceName: "agent-memory",
      scopesSupported: [],
      authorizationOptions: { rateLimit: limit },
      tokenOptions: { rateLimit: limit },
      revocationOptions: { rateLimit: limit },
      clientRegistrationOptions: { rateLimit: limit },
    }),
  );
  app.use(consentRouter({ deps, issuer: issuerUrl.href, getClient: async (id) => (await provider.clientsStore.getClient(id)) ?? undefined }));
  mountOAuthMcp(app, deps, options, createVerifier, resourceMetadataUrl);
}

/**
 * Client metadata the SDK's registration would refuse, refused first with a
 * description a developer can read: the SDK sends zod's whole issue list as
 * pretty-printed JSON in error_description. The SDK still validates what passes.
 */
const readableMetadataErrors: RequestHandler = (req, res, next) => {
  const parsed = OAuthClientMetadataSchema.safeParse(req.body);
  if (parsed.success) return next();
  const problems = parsed.error.issues.map((i) => issueText(i, "the body"));
  res.status(400).set("Cache-Control", "no-store").json({
    error: "invalid_client_metadata",
    error_description: `${problems.join("; ")}. Send JSON client metadata (RFC 7591) with at least redirect_uris, e.g. {"redirect_uris":["http://127.0.0.1:33418/callback"],"token_endpoint_auth_method":"none"}.`,
  });
};

const hashClientSecret: RequestHandler = (req, _res, next) => {
  const body = req.body as Record<string, unknown> | undefined;
  if (body && typeof body.client_secret === "string") body.client_secret = hashSecret(body.client_secret);
  next();
};
