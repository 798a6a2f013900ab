// Grants, codes and tokens of the built-in authorization server. Every state
// change runs in one transaction with the row it depends on locked, so two
// replicas exchanging the same code or refresh token serialize: exactly one
// wins, the other sees it used and revokes the grant (a reused secret means it
// leaked).
import { OAuthErrorCode, type OAuthTokens } from "../mcp-sdk/index.js";
import { generateToken, tokenHint } from "../auth/tokens.js";
import type { Database, Queryable } from "../db/core/database.js";
import { notFound } from "../errors.js";
import { CODE_PREFIX, REFRESH_PREFIX } from "../secrets/own-tokens.js";
import { hashSecret, newSecret } from "./secrets.js";
import { oauthError } from "./protocol.js";
import * as sql from "./sql.js";

const invalidGrant = (message: string) => oauthError(OAuthErrorCode.InvalidGrant, message);

/** Authorization codes live one minute: the client exchanges them right away. */
const CODE_TTL_SECONDS = 60;

export interface TokenLifetimes {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

type RevocationReason = "revoked by operator" | "revoked by client" | "refresh token reused" | "authorization code reused";

async function revokeGrant(tx: Queryable, grantId: number, reason: RevocationReason): Promise<void> {
  await tx.query(sql.REVOKE_GRANT, [grantId, reason]);
  await tx.query(sql.REVOKE_GRANT_ACCESS_TOKENS, [grantId]);
  await tx.query(sql.REVOKE_GRANT_REFRESH_TOKENS, [grantId]);
}

interface NewGrant {
  clientId: string;
  agentId: number;
  approvedBy: number;
  resource: string;
  codeChallenge: string;
  redirectUri: string;
}

/** Records the approval and returns the authorization code for it (the secret, shown once). */
export async function createGrantWithCode(tx: Queryable, grant: NewGrant): Promise<string> {
  const row = (await tx.query<{ id: number }>(sql.INSERT_GRANT, [grant.clientId, grant.agentId, grant.approvedBy, grant.resource])).rows[0]!;
  const code = newSecret(CODE_PREFIX);
  await tx.query(sql.INSERT_CODE, [hashSecret(code), row.id, grant.codeChallenge, grant.redirectUri, CODE_TTL_SECONDS]);
  return code;
}

interface CodeRow {
  grant_id: number;
  code_challenge: string;
  redirect_uri: string;
  used_at: Date | null;
  expired: boolean;
  client_id: string;
  resource: string;
  grant_revoked_at: Date | null;
  agent_id: number;
  agent: string;
  disabled_at: Date | null;
}

const REUSED_CODE = "This authorization code was already used; every token issued with it has been revoked. Start the authorization again.";

/**
 * The PKCE challenge of a code, for the SDK's check before the exchange. A code
 * used before is a replay: the tokens the first use minted are revoked here too.
 */
export async function challengeForCode(db: Database, clientId: string, code: string): Promise<string> {
  return db.transaction(async (tx) => {
    const row = (await tx.query<CodeRow>(sql.SELECT_CODE_FOR_UPDATE, [hashSecret(code)])).rows[0];
    validateCode(row, clientId);
    if (row.used_at) {
      await revokeGrant(tx, row.grant_id, "authorization code reused");
      return { reused: true as const };
    }
    return { reused: false as const, challenge: row.code_challenge };
  }).then((r) => {
    // Thrown after the commit, so the revocation stays.
    if (r.reused) throw invalidGrant(REUSED_CODE);
    return r.challenge;
  });
}

function validateCode(row: CodeRow | undefined, clientId: string): asserts row is CodeRow {
  if (!row || row.client_id !== clientId) throw invalidGrant("Unknown authorization code for this client. Start the authorization again.");
  if (!row.used_at && row.expired) throw invalidGrant(`The authorization code has expired (codes live ${CODE_TTL_SECONDS} seconds). Start the authorization again.`);
}

interface CodeExchange {
  clientId: string;
  code: string;
  redirectUri: string | undefined;
  resource: URL | undefined;
}

export async function exchangeCode(db: Database, request: CodeExchange, lifetimes: TokenLifetimes): Promise<OAuthTokens> {
  const outcome = await db.transaction(async (tx) => {
    const row = (await tx.query<CodeRow>(sql.SELECT_CODE_FOR_UPDATE, [hashSecret(request.code)])).rows[0];
    validateCode(row, request.clientId);
    if (row.used_at) {
      await revokeGrant(tx, row.grant_id, "authorization code reused");
      return { error: invalidGrant(REUSED_CODE) };
    }
    await tx.query(sql.USE_CODE, [hashSecret(request.code)]);
    if (request.redirectUri !== undefined && request.redirectUri !== row.redirect_uri) {
      throw invalidGrant("redirect_uri differs from the one of the authorization request.");
    }
    validateResource(request.resource, row.resource);
    validateGrantUsable(row);
    return { tokens: await mintTokens(tx, row.grant_id, row.agent_id, lifetimes) };
  });
  if (outcome.error) throw outcome.error;
  return outcome.tokens!;
}

interface RefreshRow {
  id: number;
  grant_id: number;
  used_at: Date | null;
  revoked_at: Date | null;
  expired: boolean;
  client_id: string;
  resource: string;
  grant_revoked_at: Date | null;
  agent_id: number;
  agent: string;
  disabled_at: Date | null;
}

export async function exchangeRefresh(db: Database, clientId: string, refreshToken: string, resource: URL | undefined, lifetimes: TokenLifetimes): Promise<OAuthTokens> {
  const outcome = await db.transaction(async (tx) => {
    const row = (await tx.query<RefreshRow>(sql.SELECT_REFRESH_FOR_UPDATE, [hashSecret(refreshToken)])).rows[0];
    if (!row || row.client_id !== clientId) throw invalidGrant("Unknown refresh token for this client. Authorize again.");
    if (row.used_at && !row.grant_revoked_at) {
      // Rotation means each refresh token is used once; a second use is a stolen copy
      // (or the thief's first use and now the owner's): end the whole grant.
      await revokeGrant(tx, row.grant_id, "refresh token reused");
      return { error: invalidGrant("This refresh token was already used; the grant has been revoked because the token may have leaked. Authorize again.") };
    }
    if (row.revoked_at || row.used_at) throw invalidGrant("The refresh token has been revoked. Authorize again.");
    if (row.expired) throw invalidGrant("The refresh token has expired. Authorize again.");
    validateResource(resource, row.resource);
    validateGrantUsable(row);
    await tx.query(sql.USE_REFRESH, [row.id]);
    return { tokens: await mintTokens(tx, row.grant_id, row.agent_id, lifetimes) };
  });
  if (outcome.error) throw outcome.error;
  return outcome.tokens!;
}

function validateResource(requested: URL | undefined, granted: string): void {
  if (requested !== undefined && requested.href !== granted) {
    throw oauthError("invalid_target", `This grant is for the resource ${granted}, not ${requested.href}.`);
  }
}

function validateGrantUsable(row: { grant_revoked_at: Date | null; disabled_at: Date | null; agent: string }): void {
  if (row.grant_revoked_at) throw invalidGrant("The grant has been revoked. Authorize again.");
  if (row.disabled_at) throw invalidGrant(`The agent "${row.agent}" is disabled; ask an operator to enable it, then authorize again.`);
}

async function mintTokens(tx: Queryable, grantId: number, agentId: number, lifetimes: TokenLifetimes): Promise<OAuthTokens> {
  const accessToken = generateToken();
  await tx.query(sql.INSERT_ACCESS_TOKEN, [agentId, hashSecret(accessToken), tokenHint(accessToken), lifetimes.accessTokenTtlSeconds, grantId]);
  const refreshToken = newSecret(REFRESH_PREFIX);
  await tx.query(sql.INSERT_REFRESH, [hashSecret(refreshToken), grantId, lifetimes.refreshTokenTtlSeconds]);
  return { access_token: accessToken, token_type: "Bearer", expires_in: lifetimes.accessTokenTtlSeconds, refresh_token: refreshToken };
}

/**
 * RFC 7009: a refresh token ends its whole grant; an access token only itself.
 * Tokens of other clients, static tokens and unknown values are ignored, as the
 * RFC asks (the answer is 200 either way, so nothing is revealed).
 */
export async function revokePresentedToken(db: Database, clientId: string, token: string): Promise<void> {
  const hash = hashSecret(token);
  await db.transaction(async (tx) => {
    const refresh = (await tx.query<{ grant_id: number; client_id: string }>(sql.SELECT_GRANT_OF_REFRESH, [hash])).rows[0];
    if (refresh && refresh.client_id === clientId) {
      await revokeGrant(tx, refresh.grant_id, "revoked by client");
      return;
    }
    const access = (await tx.query<{ token_id: number; client_id: string }>(sql.SELECT_GRANT_OF_ACCESS, [hash])).rows[0];
    if (access && access.client_id === clientId) await tx.query(sql.REVOKE_ACCESS_TOKEN, [access.token_id]);
  });
}

interface TokenGrant {
  tokenId: number;
  id: number;
  resource: string;
  clientId: string;
  revokedAt: Date | null;
}

/** The grant behind an access token (by the token itself), or undefined for a static token. */
export async function grantOfToken(db: Queryable, token: string): Promise<TokenGrant | undefined> {
  const row = (
    await db.query<{ token_id: number; id: number; resource: string; client_id: string; revoked_at: Date | null }>(sql.SELECT_TOKEN_GRANT, [hashSecret(token)])
  ).rows[0];
  return row ? { tokenId: row.token_id, id: row.id, resource: row.resource, clientId: row.client_id, revokedAt: row.revoked_at } : undefined;
}

export interface GrantRecord {
  id: number;
  clientId: string;
  clientName: string | null;
  agent: string;
  approvedBy: string;
  resource: string;
  createdAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  lastUsedAt: Date | null;
  /**
   * active: its code was exchanged for tokens; pending: approved, its code not
   * exchanged yet; unused: approved, but its code expired unexchanged (the
   * client never finished: no token was ever issued); revoked.
   */
  status: "active" | "pending" | "unused" | "revoked";
}

export async function listGrants(db: Queryable, agentName?: string): Promise<GrantRecord[]> {
  const rows = (
    await db.query<{
      id: number;
      client_id: string;
      client_name: string | null;
      agent: string;
      approved_by: string;
      resource: string;
      created_at: Date;
      revoked_at: Date | null;
      revoked_reason: string | null;
      last_used_at: Date | null;
      exchanged: boolean;
      code_pending: boolean;
    }>(sql.LIST_GRANTS, [agentName ?? null])
  ).rows;
  return rows.map((r) => ({
    id: Number(r.id),
    clientId: r.client_id,
    clientName: r.client_name,
    agent: r.agent,
    approvedBy: r.approved_by,
    resource: r.resource,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    revokedReason: r.revoked_reason,
    lastUsedAt: r.last_used_at,
    status: r.revoked_at ? "revoked" : r.exchanged ? "active" : r.code_pending ? "pending" : "unused",
  }));
}

export async function revokeGrantById(db: Database, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const row = (await tx.query(sql.SELECT_GRANT_FOR_UPDATE, [id])).rows[0];
    if (!row) throw notFound(`No grant with id ${id}. List grants with: agent-memory grant list`);
    await revokeGrant(tx, id, "revoked by operator");
  });
}
