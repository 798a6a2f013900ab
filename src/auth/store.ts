// Agents and tokens: creation, listing, disabling, revocation (the admin side;
// the per-request token check is in verifier.ts).
import { type Caller, type CallerRow, callerOfRow } from "./caller.js";
import { createHash } from "node:crypto";
import type { Queryable } from "../db/core/database.js";
import { conflict, invalid, notFound } from "../errors.js";
import { validateAgentName, validateScopes } from "./scopes.js";
import * as sql from "./sql.js";
import { generateToken, hashToken, tokenHint } from "./tokens.js";

export interface Agent {
  id: number;
  name: string;
  kind: "agent" | "human";
  writeScopes: string[];
  readScopes: string[];
  createdAt: Date;
  disabledAt: Date | null;
}

/**
 * The caller an agent is when it acts without one of its tokens (the CLI's
 * --as, an identity provider's JWT): tokenId 0 marks "not one of our tokens".
 */
export function callerOf(agent: Agent): Caller {
  return { agentId: agent.id, name: agent.name, kind: agent.kind, writeScopes: agent.writeScopes, readScopes: agent.readScopes, tokenId: 0 };
}

export interface TokenRecord {
  id: number;
  agent: string;
  hint: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Set for a token the OAuth server minted: its grant, and the client's name. Revoking the token revokes the grant. */
  oauthGrant: { id: number; client: string } | null;
}

interface AgentRow {
  id: number;
  name: string;
  kind: "agent" | "human";
  write_scopes: string[];
  read_scopes: string[];
  created_at: Date;
  disabled_at: Date | null;
}

interface TokenRow {
  id: number;
  agent: string;
  hint: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  oauth_grant_id: string | number | null;
  oauth_client: string | null;
}

const toAgent = (r: AgentRow): Agent => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  writeScopes: r.write_scopes,
  readScopes: r.read_scopes,
  createdAt: r.created_at,
  disabledAt: r.disabled_at,
});

const toToken = (r: TokenRow): TokenRecord => ({
  id: r.id,
  agent: r.agent,
  hint: r.hint,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
  oauthGrant: r.oauth_grant_id === null ? null : { id: Number(r.oauth_grant_id), client: r.oauth_client ?? "unknown client" },
});

/**
 * The reserved identity of `agent-memory import`: the confirmer of facts that
 * were confirmed in the file-based memory before the import, when the file
 * names nobody who is an agent here. Disabled, no scopes, never a token
 * (am_importer_never_signs_in holds the same rules).
 */
export const IMPORTER_AGENT = "importer";

/** What the reserved importer is, where agents are listed (agent list, the console's Agents page). */
export const IMPORTER_NOTE =
  `"${IMPORTER_AGENT}" is reserved: it stands for history an import brought in without an agent of this service behind it ` +
  "(a confirmation made before the import, a graph line without its author). It is disabled and never signs in or gets a token.";

/** The agent a first start creates: a person with every scope (src/serve.ts). */
export const FIRST_OWNER = "owner";

function refuseReserved(name: string, what: string): void {
  if (name === IMPORTER_AGENT) {
    throw invalid(`"${IMPORTER_AGENT}" is a reserved agent name: it stands for confirmations made before an import and can never sign in, so it cannot ${what}.`);
  }
}

/**
 * The importer identity, created on first use (in the caller's transaction, so
 * a dry run leaves nothing behind). An enabled agent already holding the name
 * (made before the name was reserved) is refused rather than borrowed.
 */
export async function ensureImporterAgent(db: Queryable): Promise<{ id: number; name: string }> {
  await db.query(sql.INSERT_IMPORTER, [IMPORTER_AGENT]);
  const row = (await db.query<AgentRow>(sql.SELECT_AGENT_BY_NAME, [IMPORTER_AGENT])).rows[0]!;
  if (!row.disabled_at || row.kind !== "agent") {
    throw conflict(`An agent named "${IMPORTER_AGENT}" exists and can sign in, but that name is reserved for the import identity; rename or disable it first.`);
  }
  return { id: Number(row.id), name: row.name };
}

interface NewAgent {
  name: string;
  kind: "agent" | "human";
  writeScopes: string[];
  readScopes?: string[];
}

export async function createAgent(db: Queryable, input: NewAgent): Promise<Agent> {
  validateAgentName(input.name);
  refuseReserved(input.name, "be added");
  const write = validateScopes(input.writeScopes, "Scope");
  const read = validateScopes(input.readScopes ?? [], "Read scope");
  const r = await db.query<AgentRow>(sql.INSERT_AGENT, [input.name, input.kind, write, read]);
  const row = r.rows[0];
  if (!row) throw conflict(`An agent named "${input.name}" already exists.`);
  return toAgent(row);
}

/** An agent from a whole export: created as it was (kind, scopes, creation time, disabled), without a token; null when the name is taken here. */
export async function restoreAgent(db: Queryable, input: NewAgent & { createdAt: string; disabled: boolean }): Promise<Agent | null> {
  validateAgentName(input.name);
  refuseReserved(input.name, "be added");
  const write = validateScopes(input.writeScopes, "Scope");
  const read = validateScopes(input.readScopes ?? [], "Read scope");
  const row = (await db.query<AgentRow>(sql.RESTORE_AGENT, [input.name, input.kind, write, read, input.createdAt, input.disabled])).rows[0];
  return row ? toAgent(row) : null;
}

/** Every agent but the reserved importer, oldest first (what a whole export lists). */
export async function agentsForExport(db: Queryable): Promise<Agent[]> {
  return (await db.query<AgentRow>(sql.EXPORT_AGENTS, [IMPORTER_AGENT])).rows.map(toAgent);
}

/**
 * The agent an identity provider's JWT names, as the caller it makes, read as the
 * token check reads a token's (its last write position, whether a notice waits),
 * and whether it is disabled; undefined when there is no such agent.
 */
export async function callerByAgentName(db: Queryable, name: string): Promise<{ caller: Caller; disabled: boolean } | undefined> {
  const row = (await db.query<CallerRow & { disabled_at: Date | null }>(sql.CALLER_BY_AGENT_NAME, [name])).rows[0];
  return row && { caller: callerOfRow(row), disabled: row.disabled_at !== null };
}

export async function getAgent(db: Queryable, name: string): Promise<Agent> {
  const row = (await db.query<AgentRow>(sql.SELECT_AGENT_BY_NAME, [name])).rows[0];
  if (!row) throw notFound(`No agent named "${name}". List agents with: agent-memory agent list`);
  return toAgent(row);
}

export async function listAgents(db: Queryable): Promise<Array<Agent & { activeTokens: number }>> {
  const r = await db.query<AgentRow & { active_tokens: number }>(sql.LIST_AGENTS);
  return r.rows.map((row) => ({ ...toAgent(row), activeTokens: row.active_tokens }));
}

/** Every agent, as names to map to ids: without listAgents' token counts. */
export async function agentNames(db: Queryable): Promise<Array<{ id: number; name: string; disabled: boolean }>> {
  return (await db.query<{ id: number; name: string; disabled: boolean }>(sql.AGENT_NAMES)).rows;
}

export async function setAgentDisabled(db: Queryable, name: string, disabled: boolean): Promise<Agent> {
  if (!disabled) refuseReserved(name, "be enabled");
  const row = (await db.query<AgentRow>(sql.SET_AGENT_DISABLED, [name, disabled])).rows[0];
  if (!row) throw notFound(`No agent named "${name}".`);
  return toAgent(row);
}

export async function setAgentScopes(db: Queryable, name: string, writeScopes: string[], readScopes: string[]): Promise<Agent> {
  refuseReserved(name, "get scopes");
  const row = (
    await db.query<AgentRow>(sql.SET_AGENT_SCOPES, [name, validateScopes(writeScopes, "Scope"), validateScopes(readScopes, "Read scope")])
  ).rows[0];
  if (!row) throw notFound(`No agent named "${name}".`);
  return toAgent(row);
}

/**
 * Issues a token. `issueKey` (the console's form key) makes the issue happen
 * once per form: sent again (a reload, a double click), the call is refused
 * with the id of the token that form issued, whose secret is never shown again.
 */
export async function issueToken(
  db: Queryable,
  agentName: string,
  expiresAt: Date | null,
  options: { issueKey?: string | undefined } = {},
): Promise<{ token: string; record: TokenRecord; agent: Agent }> {
  refuseReserved(agentName, "get a token");
  const agent = await getAgent(db, agentName);
  if (agent.disabledAt) throw conflict(`Agent "${agentName}" is disabled; enable it before issuing tokens.`);
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw invalid("The expiry must be in the future.");
  const token = generateToken();
  const keyHash = options.issueKey === undefined ? null : issueKeyHash(options.issueKey);
  const r = await db.query<Omit<TokenRow, "agent">>(sql.INSERT_TOKEN, [agent.id, hashToken(token), tokenHint(token), expiresAt, keyHash]);
  const row = r.rows[0];
  if (!row) {
    const issued = (await db.query<{ id: string | number }>(sql.TOKEN_BY_ISSUE_KEY, [keyHash])).rows[0];
    throw conflict(
      `This form was already sent: it issued token ${issued?.id ?? "(unknown)"}, whose secret was shown only once and is not shown again. ` +
        `If nobody kept it, revoke that token and issue a new one.`,
    );
  }
  return { token, record: toToken({ ...row, agent: agent.name, oauth_grant_id: null, oauth_client: null }), agent };
}

const issueKeyHash = (issueKey: string): string => createHash("sha256").update(`token-issue\0${issueKey}`, "utf8").digest("hex");

/** The token a console form (its issueKey) issued, or null: tells a form sent again from a real conflict. */
export async function tokenIssuedByForm(db: Queryable, issueKey: string): Promise<number | null> {
  const row = (await db.query<{ id: string | number }>(sql.TOKEN_BY_ISSUE_KEY, [issueKeyHash(issueKey)])).rows[0];
  return row ? Number(row.id) : null;
}

export async function listTokens(db: Queryable, agentName?: string): Promise<TokenRecord[]> {
  if (agentName !== undefined) await getAgent(db, agentName);
  return (await db.query<TokenRow>(sql.LIST_TOKENS, [agentName ?? null])).rows.map(toToken);
}

/** Revokes a token (and its OAuth grant's); `alreadyRevoked`: it was revoked before, nothing changed. */
export async function revokeToken(db: Queryable, id: number): Promise<TokenRecord & { alreadyRevoked: boolean }> {
  const row = (await db.query<TokenRow & { already_revoked: boolean }>(sql.REVOKE_TOKEN, [id])).rows[0];
  if (!row) throw notFound(`No token with id ${id}. List tokens with: agent-memory token list`);
  return { ...toToken(row), alreadyRevoked: row.already_revoked };
}
