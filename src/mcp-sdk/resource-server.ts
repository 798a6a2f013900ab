// Bearer tokens on the MCP endpoints (/mcp with agent tokens, /oauth/mcp with
// OAuth access tokens or an identity provider's JWTs): the SDK's resource-server
// helpers. A verifier refuses a token by throwing OAuthError(InvalidToken) (401
// with a WWW-Authenticate challenge) or OAuthError(ServerError).
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, requireBearerAuth } from "@modelcontextprotocol/express";
import { OAuthError, OAuthErrorCode, type OAuthTokenVerifier } from "@modelcontextprotocol/server";

export { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, OAuthError, OAuthErrorCode, requireBearerAuth };
export type { OAuthTokenVerifier };

/** The refusal of a token that is not (or no longer) valid. */
export const invalidToken = (message: string) => new OAuthError(OAuthErrorCode.InvalidToken, message);
/** The refusal of a token that could not be checked (the database is away). */
export const tokenCheckFailed = (message: string) => new OAuthError(OAuthErrorCode.ServerError, message);
/** Whether `error` is a verifier's refusal of the token itself (not a failure to check it). */
export const isInvalidToken = (error: unknown) => error instanceof OAuthError && error.code === OAuthErrorCode.InvalidToken;
