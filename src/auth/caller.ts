// The authenticated caller, and how it travels from the bearer middleware to the
// tools: the SDK hands each callback the request's AuthInfo as it was given (the
// verifier's), and the service keeps what it knows of that request beside it,
// keyed by it (requests below): written only here (toAuthInfo, attachTrace) and
// read only through the typed accessors. Nothing of it rides inside the SDK's
// objects.
import type { AuthInfo } from "../mcp-sdk/index.js";

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
  /** The request's JSON-RPC message, as parsed (the server factory builds only what it needs for it). */
  message?: unknown;
}

/** What the service knows of one authenticated request. */
interface AuthenticatedRequest {
  caller: Caller;
  trace?: RequestTrace;
}

/** Per AuthInfo (one per authenticated request), what the service knows of its request; gone with it. */
const requests = new WeakMap<AuthInfo, AuthenticatedRequest>();

/**
 * The AuthInfo a verifier hands to requireBearerAuth for a valid token: the
 * agent-token verifier, and OAuth's (which adds the audience as `resource`).
 */
export function toAuthInfo(token: string, caller: Caller, expiresAt: number, resource?: URL): AuthInfo {
  const authInfo: AuthInfo = { token, clientId: caller.name, scopes: caller.writeScopes, expiresAt, ...(resource ? { resource } : {}) };
  requests.set(authInfo, { caller });
  return authInfo;
}

/**
 * The AuthInfo the SDK hands on may be a copy of the one the verifier made (it
 * adds fields by spreading): what the service knows of the request goes with it.
 */
export function adoptAuthInfo(handedOn: AuthInfo, verified: AuthInfo): void {
  const request = requests.get(verified);
  if (request && handedOn !== verified) requests.set(handedOn, request);
}

/** Lets tools note their names and outcome for the request's log line. */
export function attachTrace(authInfo: AuthInfo, trace: RequestTrace): void {
  const request = requests.get(authInfo);
  if (request) request.trace = trace;
}

export function callerFromAuthInfo(authInfo: AuthInfo | undefined): Caller {
  const caller = maybeCallerFromAuthInfo(authInfo);
  if (!caller) throw new Error("Tool called without an authenticated caller");
  return caller;
}

/** The caller when the request was authenticated, else undefined (middleware that runs either way). */
export function maybeCallerFromAuthInfo(authInfo: AuthInfo | undefined): Caller | undefined {
  return authInfo ? requests.get(authInfo)?.caller : undefined;
}

export function traceFromAuthInfo(authInfo: AuthInfo | undefined): RequestTrace | undefined {
  return authInfo ? requests.get(authInfo)?.trace : undefined;
}
