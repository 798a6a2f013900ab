// The authenticated caller, and how it travels from the bearer middleware to the
// tools: inside AuthInfo.extra, written only here (toAuthInfo, attachTrace) and
// read only through the typed accessors below.
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

export interface Caller {
  agentId: number;
  name: string;
  kind: "agent" | "human";
  writeScopes: string[];
  readScopes: string[];
  tokenId: number;
  /**
   * Where in the primary's WAL this agent's last write ended (agent_write_positions),
   * when reads go to replicas: a replica serves the agent only once it has replayed it.
   */
  lastWriteLsn?: string;
  /** A withdrawal notice waited for this agent when its token was checked (docs/receipts.md). */
  noticesWaiting?: true;
}

/** The columns a token's or a session's lookup returns for its agent (auth/sql.ts, console/sql.ts). */
export interface CallerRow {
  agent_id: number;
  name: string;
  kind: "agent" | "human";
  write_scopes: string[];
  read_scopes: string[];
  token_id: number;
  /** agent_write_positions.lsn, where the lookup reads it (the token check). */
  write_lsn?: string | null;
  /** Whether a withdrawal notice waits (the token check reads it). */
  notices_waiting?: boolean;
}

/** The caller a looked-up token or console session stands for: built here only. */
export function callerOfRow(row: CallerRow): Caller {
  const caller: Caller = { agentId: row.agent_id, name: row.name, kind: row.kind, writeScopes: row.write_scopes, readScopes: row.read_scopes, tokenId: row.token_id };
  if (row.write_lsn) caller.lastWriteLsn = row.write_lsn;
  if (row.notices_waiting) caller.noticesWaiting = true;
  return caller;
}

/** Per-request notes that the request log line picks up (see http/logging.ts). */
export interface RequestTrace {
  requestId: string;
  tools: string[];
  outcome?: string;
  /**
   * Callbacks (tools, resources, prompts) still running for this request. A
   * client that goes away does not stop their statements, so the per-agent
   * concurrency limit holds the request's slot until these have ended.
   */
  running?: Set<Promise<unknown>>;
  /** Facts the answer served (CallContext.served), for the request's trace span. */
  served?: number;
  /** The one scope those facts were in, if they were all in one. */
  storeId?: string;
  /**
   * Why the database could not serve a callback of this request (it could not
   * be reached, or stopped answering): the request is answered 503 with
   * Retry-After and this message, as when the token could not be checked.
   */
  databaseUnavailable?: string;
}

/** The shape of AuthInfo.extra in this service. */
type AuthExtra = {
  caller: Caller;
  trace?: RequestTrace;
};

/**
 * The AuthInfo a verifier hands to requireBearerAuth for a valid token: the
 * agent-token verifier, and OAuth's (which adds the audience as `resource`).
 */
export function toAuthInfo(token: string, caller: Caller, expiresAt: number, resource?: URL): AuthInfo {
  const extra: AuthExtra = { caller };
  return { token, clientId: caller.name, scopes: caller.writeScopes, expiresAt, ...(resource ? { resource } : {}), extra };
}

/** Lets tools note their names and outcome for the request's log line. */
export function attachTrace(authInfo: AuthInfo, trace: RequestTrace): void {
  authInfo.extra = { ...authInfo.extra, trace };
}

// AuthInfo.extra is Record<string, unknown> in the SDK; toAuthInfo is its only
// writer here, so these readers know its shape.
function authExtra(authInfo: AuthInfo | undefined): Partial<AuthExtra> {
  return (authInfo?.extra ?? {}) as Partial<AuthExtra>;
}

export function callerFromAuthInfo(authInfo: AuthInfo | undefined): Caller {
  const caller = authExtra(authInfo).caller;
  if (!caller) throw new Error("Tool called without an authenticated caller");
  return caller;
}

/** The caller when the request was authenticated, else undefined (middleware that runs either way). */
export function maybeCallerFromAuthInfo(authInfo: AuthInfo | undefined): Caller | undefined {
  return authExtra(authInfo).caller;
}

export function traceFromAuthInfo(authInfo: AuthInfo | undefined): RequestTrace | undefined {
  return authExtra(authInfo).trace;
}
