// OAuth for hosted MCP clients, mounted only when OAUTH_MODE is set. It adds a
// second MCP path, /oauth/mcp, whose 401 announces the protected-resource
// metadata (RFC 9728). /mcp is left exactly as it was: clients that find OAuth
// discovery stop sending their configured static header, so the static path
// must never advertise it.
import type { Express, RequestHandler } from "express";
import type { AppDeps } from "../app-deps.js";
import type { Config } from "../config/index.js";
import { isInvalidToken, type OAuthProtectedResourceMetadata, type OAuthTokenVerifier } from "../mcp-sdk/index.js";
import type { VerifierDeps } from "../auth/verifier.js";
import { bearerAuth, bearerToken, failedAuthLimit } from "../mcp-endpoint/auth.js";
import { methodNotAllowed } from "../mcp-endpoint/mcp-route.js";
import { consentRouter } from "./consent.js";
import { createJwtVerifierFactory } from "./external.js";
import { createOAuthProvider } from "./provider.js";
import { authorizationServer } from "./authorization-server.js";
import { authorizationServerMetadata, metadataDocument } from "./protocol.js";
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

  /** RFC 9728: what /oauth/mcp's 401 points at, naming the server that issues its tokens. */
  const resourceMetadata = (issuer: string): OAuthProtectedResourceMetadata => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [],
    resource_name: "agent-memory",
    bearer_methods_supported: ["header"],
  });

  if (config.oauth.mode === "external") {
    const external = {
      issuer: config.oauth.issuer!,
      audience: config.oauth.audience ?? resource,
      agentClaim: config.oauth.agentClaim,
      jwksUrl: config.oauth.jwksUrl,
      humanAgents: config.oauth.humanAgents,
    };
    app.use(PROTECTED_RESOURCE_METADATA_PATH, ...metadataDocument(resourceMetadata(external.issuer)));
    mountOAuthMcp(app, deps, options, createJwtVerifierFactory(external), resourceMetadataUrl);
    return;
  }

  const issuer = new URL(config.publicUrl!);
  const createVerifier = (d: Parameters<typeof createGrantTokenVerifier>[0]) => createGrantTokenVerifier(d, resource);
  const provider = createOAuthProvider(deps, { issuer: issuer.href, resource });
  app.use(PROTECTED_RESOURCE_METADATA_PATH, ...metadataDocument(resourceMetadata(issuer.href)));
  app.use("/.well-known/oauth-authorization-server", ...metadataDocument(authorizationServerMetadata(issuer)));
  app.use(authorizationServer(deps, provider, { issuer, resource, requestsPerMinute: config.oauth.rateLimitPerMinute }));
  app.use(consentRouter({ deps, issuer: issuer.href, getClient: provider.getClient }));
  mountOAuthMcp(app, deps, options, createVerifier, resourceMetadataUrl);
}
