// The token verifier behind the SDK's requireBearerAuth: one indexed lookup per
// request (so a revoked token is refused immediately, on every replica). Every
// rejection looks the same to the client, and to metrics (reason "invalid").
import type { Logger } from "pino";
import type { Database, Queryable } from "../db/core/database.js";
import type { Metrics } from "../metrics.js";
import { type Caller, type CallerRow, callerOfRow, toAuthInfo } from "./caller.js";
import * as sql from "./sql.js";
import { hashToken, looksLikeToken } from "./tokens.js";
import { preparedIn } from "../db/sql/prepared.js";
import { DATABASE_UNREACHABLE_MESSAGE } from "../db/core/classify.js";
import { type AuthInfo, invalidToken, type OAuthTokenVerifier, tokenCheckFailed } from "../mcp-sdk/index.js";

// requireBearerAuth insists on a numeric expiry; tokens without one get a
// horizon that only matters to the middleware's own check.
const NO_EXPIRY_HORIZON_SECONDS = 365 * 24 * 3600;

const REJECTED_TOKEN_MESSAGE = "The bearer token is not valid (unknown, revoked or expired, or its agent is disabled). Ask an operator for a new token.";

export interface VerifierDeps {
  db: Database;
  metrics: Metrics;
  logger: Logger;
  /** Called when the token could not be checked at all (database down), before the 500. */
  onUnavailable?: () => void;
  /** How a token is looked up (default: checkToken, one lookup per call); see sharedTokenChecks. */
  check?: (token: string) => Promise<TokenCheck>;
}

/**
 * Checks of one token that overlap share one lookup. A burst of one agent's
 * calls (500 at once from one host) queued as many lookups on the embedded
 * database's one connection, ahead of every other agent's calls; shared, it is
 * one lookup per agent. Nothing is kept once the lookup has answered: a token
 * revoked since is refused by the next call.
 */
export function sharedTokenChecks(db: Queryable): (token: string) => Promise<TokenCheck> {
  const inFlight = new Map<string, Promise<TokenCheck>>();
  return (token) => {
    const pending = inFlight.get(token);
    // The first call records the token's use; the others share its lookup, not its write.
    if (pending) return pending.then((r) => (r.ok ? { ...r, touch: false } : r));
    const check = checkToken(db, token).finally(() => inFlight.delete(token));
    inFlight.set(token, check);
    return check;
  };
}

export function createTokenVerifier(deps: VerifierDeps): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      let result;
      try {
        result = await (deps.check ?? ((t: string) => checkToken(deps.db, t)))(token);
      } catch (error) {
        deps.logger.error({ err: error }, "token lookup failed");
        deps.onUnavailable?.();
        throw tokenCheckFailed(DATABASE_UNREACHABLE_MESSAGE);
      }
      if (!result.ok) {
        // Coarse on purpose: whoever reads /metrics must not learn that a token
        // once existed (revoked, expired) rather than never (unknown).
        deps.metrics.authFailures.inc({ reason: "invalid" });
        throw invalidToken(REJECTED_TOKEN_MESSAGE);
      }
      if (result.touch) {
        touchToken(deps.db, result.caller.tokenId).catch((error) => deps.logger.warn({ err: error }, "could not record token use"));
      }
      const expiresAt = result.expiresAt
        ? Math.floor(result.expiresAt.getTime() / 1000)
        : Math.floor(Date.now() / 1000) + NO_EXPIRY_HORIZON_SECONDS;
      return toAuthInfo(token, result.caller, expiresAt);
    },
  };
}

// The per-request check: one indexed lookup by the token's hash.
export type TokenRejection = "malformed" | "unknown" | "revoked" | "expired" | "agent_disabled";

export type TokenCheck =
  | { ok: true; caller: Caller; expiresAt: Date | null; touch: boolean; /** Issued by an OAuth grant (short-lived, for MCP only). */ oauthGrant: boolean }
  | { ok: false; reason: TokenRejection };

interface VerifyRow extends CallerRow {
  expires_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
  stale_last_used: boolean;
  oauth_grant: boolean;
  disabled_at: Date | null;
}

export async function checkToken(db: Queryable, token: string): Promise<TokenCheck> {
  if (!looksLikeToken(token)) return { ok: false, reason: "malformed" };
  const row = (await db.query<VerifyRow>(sql.VERIFY_TOKEN, [hashToken(token)], { ...preparedIn("auth")("verify_token"), urgent: true })).rows[0];
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revoked_at) return { ok: false, reason: "revoked" };
  if (row.expired) return { ok: false, reason: "expired" };
  if (row.disabled_at) return { ok: false, reason: "agent_disabled" };
  return {
    ok: true,
    touch: row.stale_last_used,
    oauthGrant: row.oauth_grant,
    expiresAt: row.expires_at,
    caller: callerOfRow(row),
  };
}

/**
 * The check of a sign-in by token (the console, the OAuth consent page) when
 * it may sign in, else undefined. Only a valid static token signs in: a token issued through OAuth
 * serves MCP alone, or a client could turn its short-lived, revocable grant
 * into a session that approves more grants or mints tokens outliving it.
 * Callers count every refusal as "invalid", never by reason.
 */
export async function checkSignInToken(db: Queryable, token: string): Promise<Extract<TokenCheck, { ok: true }> | undefined> {
  const check = await checkToken(db, token.trim());
  return check.ok && !check.oauthGrant ? check : undefined;
}

export async function touchToken(db: Database, tokenId: number): Promise<void> {
  await db.query(sql.TOUCH_TOKEN, [tokenId]);
}
