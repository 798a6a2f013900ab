// The resource server's check for /oauth/mcp with the built-in authorization
// server: the ordinary agent-token verifier (unknown, revoked, expired, disabled
// agent: one indexed lookup, every replica) plus the audience: the token must
// come from a live grant for this resource (RFC 8707). Static tokens have no
// audience and are refused here; they belong on /mcp.
import { invalidToken, isInvalidToken, type OAuthTokenVerifier, tokenCheckFailed } from "../mcp-sdk/index.js";
import { callerFromAuthInfo, toAuthInfo } from "../auth/caller.js";
import { createTokenVerifier, type VerifierDeps } from "../auth/verifier.js";
import { grantOfToken } from "./grants.js";
import { DATABASE_UNREACHABLE_MESSAGE } from "../db/core/classify.js";

const OAUTH_REJECTED_TOKEN_MESSAGE =
  "The access token is not valid (unknown, revoked or expired, or its agent is disabled). Authorize again: reconnect the connector, or run your client's OAuth sign-in.";

export function createGrantTokenVerifier(deps: VerifierDeps, resource: string): OAuthTokenVerifier {
  const base = createTokenVerifier(deps);
  return {
    async verifyAccessToken(token) {
      // Both lookups at once (the grant's by the token's hash): the OAuth path
      // costs one more indexed query, not one more round trip.
      const grantLookup = grantOfToken(deps.db, token);
      grantLookup.catch(() => undefined);
      // A refused token is told to authorize again, not to ask an operator:
      // OAuth tokens come from the client's own authorization.
      const info = await base.verifyAccessToken(token).catch((error: unknown) => {
        if (isInvalidToken(error)) throw invalidToken(OAUTH_REJECTED_TOKEN_MESSAGE);
        throw error;
      });
      const caller = callerFromAuthInfo(info);
      let grant;
      try {
        grant = await grantLookup;
      } catch (error) {
        deps.logger.error({ err: error }, "grant lookup failed");
        deps.onUnavailable?.();
        throw tokenCheckFailed(DATABASE_UNREACHABLE_MESSAGE);
      }
      if (!grant || grant.tokenId !== caller.tokenId || grant.revokedAt || grant.resource !== resource) {
        // As coarse as every other refusal (src/metrics.ts, AUTH_FAILURE_REASONS).
        deps.metrics.authFailures.inc({ reason: "invalid" });
        throw invalidToken(`This token was not issued for ${resource}. Connect through OAuth to get one.`);
      }
      return toAuthInfo(token, caller, info.expiresAt!, new URL(grant.resource));
    },
  };
}
