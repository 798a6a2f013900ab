// Our OAuthServerProvider for the SDK's mcpAuthRouter: the protocol (request
// parsing, PKCE verification, error answers, metadata) is the SDK's; storage,
// consent and token minting are ours, in Postgres.
import { InvalidTargetError, type OAuthServerProvider, type OAuthTokenVerifier } from "../mcp-sdk/index.js";
import type { AppDeps } from "../app-deps.js";
import { createClientsStore } from "./clients.js";
import { startConsent } from "./consent.js";
import { challengeForCode, exchangeCode, exchangeRefresh, revokePresentedToken, type TokenLifetimes } from "./grants.js";

interface ProviderOptions {
  /** The issuer URL as the metadata states it. */
  issuer: string;
  /** The OAuth MCP URL: the only resource tokens are minted for. */
  resource: string;
  verifier: OAuthTokenVerifier;
}

export function createOAuthProvider(deps: AppDeps, options: ProviderOptions): OAuthServerProvider {
  const { db, config } = deps;
  const lifetimes: TokenLifetimes = {
    accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.oauth.refreshTokenTtlSeconds,
  };
  const clientsStore = createClientsStore(db, {
    allowLoopbackMetadataDocuments: config.oauth.allowLoopbackMetadataDocuments,
    metadataDocumentTimeoutMs: config.oauth.metadataDocumentTimeoutMs,
    secrets: deps.secrets,
  });
  const getClient = async (clientId: string) => (await clientsStore.getClient(clientId)) ?? undefined;
  return {
    clientsStore,
    async authorize(client, params, res) {
      // RFC 8707: we serve one resource; a request for another is refused (redirected with invalid_target).
      if (params.resource && params.resource.href !== options.resource) {
        throw new InvalidTargetError(`This server issues tokens only for ${options.resource}, not ${params.resource.href}.`);
      }
      await startConsent({ deps, issuer: options.issuer, getClient }, client, { ...params, resource: options.resource }, res);
    },
    challengeForAuthorizationCode: (client, code) => challengeForCode(db, client.client_id, code),
    exchangeAuthorizationCode: (client, code, _verifier, redirectUri, resource) =>
      exchangeCode(db, { clientId: client.client_id, code, redirectUri, resource }, lifetimes),
    exchangeRefreshToken: (client, refreshToken, _scopes, resource) => exchangeRefresh(db, client.client_id, refreshToken, resource, lifetimes),
    verifyAccessToken: (token) => options.verifier.verifyAccessToken(token),
    revokeToken: (client, request) => revokePresentedToken(db, client.client_id, request.token),
  };
}
