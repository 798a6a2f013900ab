// The storage and consent behind the authorization server's endpoints
// (authorization-server.ts): clients, grants, codes and tokens in Postgres, the
// consent page for an authorization request.
import type { AppDeps } from "../app-deps.js";
import type { AuthorizationServerProvider } from "./authorization-server.js";
import { createClientsStore } from "./clients.js";
import { startConsent } from "./consent.js";
import { challengeForCode, exchangeCode, exchangeRefresh, revokePresentedToken, type TokenLifetimes } from "./grants.js";

interface ProviderOptions {
  /** The issuer URL as the metadata states it. */
  issuer: string;
  /** The OAuth MCP URL: the only resource tokens are minted for. */
  resource: string;
}

export function createOAuthProvider(deps: AppDeps, options: ProviderOptions): AuthorizationServerProvider {
  const { db, config } = deps;
  const lifetimes: TokenLifetimes = {
    accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.oauth.refreshTokenTtlSeconds,
  };
  const clients = createClientsStore(db, {
    allowLoopbackMetadataDocuments: config.oauth.allowLoopbackMetadataDocuments,
    metadataDocumentTimeoutMs: config.oauth.metadataDocumentTimeoutMs,
    secrets: deps.secrets,
  });
  return {
    ...clients,
    authorize: (client, request, res) => startConsent({ deps, issuer: options.issuer, getClient: clients.getClient }, client, { ...request, resource: options.resource }, res),
    challengeForCode: (clientId, code) => challengeForCode(db, clientId, code),
    exchangeCode: (clientId, code, redirectUri, resource) => exchangeCode(db, { clientId, code, redirectUri, resource }, lifetimes),
    exchangeRefresh: (clientId, refreshToken, resource) => exchangeRefresh(db, clientId, refreshToken, resource, lifetimes),
    revoke: (clientId, token) => revokePresentedToken(db, clientId, token),
  };
}
