// OAUTH_MODE=external: another identity provider (Keycloak, Auth0, Entra ID…)
// issues the tokens; we are only the resource server. A token is a JWT signed
// with a key of the issuer's JWKS (fetched once, cached, refreshed by jose when
// an unknown key id appears), with our issuer and audience, not expired; one
// configured claim names the agent, which must exist, be enabled and be of kind
// agent (a person only when OAUTH_HUMAN_AGENTS lists them).
import { invalidToken, type OAuthTokenVerifier, tokenCheckFailed } from "../mcp-sdk/index.js";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from "jose";
import { toAuthInfo } from "../auth/caller.js";
import { isHuman } from "../auth/scopes.js";
import { callerByAgentName } from "../auth/store.js";
import type { VerifierDeps } from "../auth/verifier.js";
import { DATABASE_UNREACHABLE_MESSAGE } from "../db/core/classify.js";

interface ExternalIssuer {
  issuer: string;
  audience: string;
  agentClaim: string;
  jwksUrl: string | undefined;
  /** Agents of kind human a token may name (OAUTH_HUMAN_AGENTS); any agent of kind agent may be named. */
  humanAgents: readonly string[];
}

const DISCOVERY_TIMEOUT_MS = 5000;

/** The issuer's jwks_uri from its OpenID or RFC 8414 metadata. */
async function discoverJwksUrl(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, "");
  for (const path of ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"]) {
    const response = await fetch(base + path, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: "error" }).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === "string") return metadata.jwks_uri;
  }
  throw new Error(`no jwks_uri found in the metadata of ${issuer}; set OAUTH_JWKS_URL`);
}

/**
 * Verifiers for one issuer. The key set is made once here and shared by the
 * verifier of every request (the bearer middleware builds one per request), so
 * the JWKS is fetched once and then only when a new key id appears.
 */
export function createJwtVerifierFactory(external: ExternalIssuer): (deps: VerifierDeps) => OAuthTokenVerifier {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = () => {
    keys ??= (async () => {
      const url = external.jwksUrl ?? (await discoverJwksUrl(external.issuer));
      return createRemoteJWKSet(new URL(url), { timeoutDuration: DISCOVERY_TIMEOUT_MS, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    })();
    // A failed discovery is retried on the next request rather than remembered.
    keys.catch(() => (keys = undefined));
    return keys;
  };
  return (deps) => createJwtVerifier(deps, external, keySet);
}

function createJwtVerifier(deps: VerifierDeps, external: ExternalIssuer, keySet: () => Promise<JWTVerifyGetKey>): OAuthTokenVerifier {
  // The caller is told why (it holds the token, whose claims it can read anyway);
  // metrics only that a token was refused (src/metrics.ts, AUTH_FAILURE_REASONS).
  const reject = (reason: string): never => {
    deps.metrics.authFailures.inc({ reason: "invalid" });
    throw invalidToken(`The bearer token is not valid for this server (${reason}). Sign in again through your identity provider.`);
  };

  return {
    async verifyAccessToken(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, await keySet(), { issuer: external.issuer, audience: external.audience, requiredClaims: ["exp"] }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) return reject("expired");
        if (error instanceof joseErrors.JWTClaimValidationFailed) return reject(error.claim === "aud" ? "wrong audience" : error.claim === "iss" ? "wrong issuer" : "bad claims");
        if (error instanceof joseErrors.JOSEError && !(error instanceof joseErrors.JWKSTimeout)) return reject("bad signature or format");
        deps.logger.error({ err: error }, "identity provider keys unavailable");
        deps.onUnavailable?.();
        throw tokenCheckFailed("The identity provider's keys could not be fetched; retry in a few seconds.");
      }
      const name = payload[external.agentClaim];
      if (typeof name !== "string" || name === "") return reject("no agent claim");
      let found;
      try {
        found = await callerByAgentName(deps.db, name);
      } catch {
        deps.onUnavailable?.();
        throw tokenCheckFailed(DATABASE_UNREACHABLE_MESSAGE);
      }
      if (!found) return reject("unknown agent");
      if (found.disabled) return reject("agent disabled");
      const { caller } = found;
      // A person's powers (an admin's: every scope, confirming in their name) go
      // to an identity provider's client only for the people the operator lists.
      if (isHuman(caller) && !external.humanAgents.includes(caller.name)) return reject("names a human agent not listed in OAUTH_HUMAN_AGENTS");
      return toAuthInfo(token, caller, payload.exp!, new URL(external.audience));
    },
  };
}
