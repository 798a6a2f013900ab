// Shared by the reliability tests: service replicas as real processes (the built
// CLI), raw JSON-RPC calls that record exactly what a client was told, direct
// database connections for holding locks, and polling with deadlines (never a
// sleep standing in for synchronisation).
import { request } from "node:http";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { adminQuery } from "../support/admin-db.js";
import { type ServeProcess, startServe } from "../support/cli.js";
import { MCP_HEADERS, textOf } from "../support/mcp.js";

export interface Replica {
  /** http://host:port, without /mcp. */
  url: string;
  mcpUrl: string;
  process: ServeProcess;
  pid: number;
  /** Sends a signal and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every replica started by a test file, so afterAll can make sure none survives. */
const started = new Set<Replica>();

/**
 * Starts `agent-memory serve` as its own process on a free port against
 * `databaseUrl`. Small pools: several replicas and test files share one
 * Postgres server with 100 connection slots.
 */
export async function startReplica(databaseUrl: string, env: Record<string, string> = {}): Promise<Replica> {
  const proc = startServe({
    DATABASE_URL: databaseUrl,
    FIRST_START_OWNER: "false",
    AUTH_FAILURES_PER_MINUTE: "0",
    LOG_LEVEL: "warn",
    DB_POOL_MAX: "5",
    ...env,
  });
  const mcpUrl = await proc.ready;
  const replica: Replica = {
    url: mcpUrl.replace(/\/mcp$/, ""),
    mcpUrl,
    process: proc,
    pid: proc.child.pid!,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(signal);
      const code = await proc.exited;
      started.delete(replica);
      return code;
    },
  };
  started.add(replica);
  return replica;
}

export async function stopAllReplicas(): Promise<void> {
  await Promise.all([...started].map((r) => r.stop("SIGKILL")));
}

/** What a client was told by one tools/call: the tool's answer, an HTTP refusal, or no answer at all. */
export type Outcome =
  | { kind: "ok"; result: CallToolResult }
  | { kind: "refused"; text: string; result: CallToolResult }
  | { kind: "http"; status: number; body: string; retryAfter: string | null }
  | { kind: "rpc-error"; code: number; message: string }
  | { kind: "no-answer"; error: string };

let nextId = 1;

// Shared with every test and the benchmark; re-exported for the reliability tests.
export { adminQuery, MCP_HEADERS };


/** POSTs one JSON-RPC message to /mcp and returns the raw HTTP answer. */
export async function postMcp(mcpUrl: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(mcpUrl, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const toolCall = (name: string, args: unknown, id = nextId++) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

/**
 * Calls a tool the way an MCP client does (stateless Streamable HTTP needs no
 * initialize round trip) and classifies the answer without throwing.
 */
export async function callTool(mcpUrl: string, token: string, name: string, args: unknown): Promise<Outcome> {
  let res: Response;
  try {
    res = await postMcp(mcpUrl, token, toolCall(name, args));
  } catch (error) {
    return { kind: "no-answer", error: String((error as Error).cause ?? error) };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (error) {
    return { kind: "no-answer", error: String((error as Error).cause ?? error) };
  }
  if (res.status !== 200) return { kind: "http", status: res.status, body: text, retryAfter: res.headers.get("retry-after") };
  const message = JSON.parse(text) as { result?: CallToolResult; error?: { code: number; message: string } };
  if (message.error) return { kind: "rpc-error", code: message.error.code, message: message.error.message };
  const result = message.result!;
  if (result.isError) return { kind: "refused", text: textOf(result), result };
  return { kind: "ok", result };
}

/** The service's answers that say the same call may simply be repeated (lock timeout, deadlock, database away). */
const RETRYABLE = /Nothing was written; retry/;

/**
 * Calls a tool as a well-behaved agent does: a refusal that says "retry" is
 * retried (at most `attempts` times in all). Hot rows under CPU contention can
 * outwait the lock timeout; that answer is correct, and retrying is its use.
 */
export async function callRetrying(mcpUrl: string, token: string, name: string, args: unknown, attempts = 5): Promise<Outcome> {
  for (let i = 1; ; i++) {
    const outcome = await callTool(mcpUrl, token, name, args);
    if (i >= attempts || outcome.kind !== "refused" || !RETRYABLE.test(outcome.text)) return outcome;
  }
}

/** Calls a tool that must succeed; returns its structuredContent. */
export async function callToolOk<T = Record<string, unknown>>(mcpUrl: string, token: string, name: string, args: unknown): Promise<T> {
  const outcome = await callTool(mcpUrl, token, name, args);
  if (outcome.kind !== "ok") throw new Error(`${name} did not succeed: ${JSON.stringify(outcome)}`);
  return outcome.result.structuredContent as T;
}


/** Thrown by a probe to stop polling at once (e.g. the service died: waiting longer is pointless). */
class GiveUp extends Error {}

/** Throws GiveUp, with the end of its output, if the replica's process has exited. */
export function assertAlive(replica: Replica): void {
  const child = replica.process.child;
  if (child.exitCode !== null || child.signalCode !== null) {
    throw new GiveUp(`the service (pid ${replica.pid}) exited with ${child.exitCode ?? child.signalCode}:\n${replica.process.stderr().slice(-2000)}`);
  }
}

/**
 * Polls `probe` until it returns something other than undefined/false, or fails
 * after `timeoutMs` with `what` in the message. Generous deadlines: the machine
 * is shared with other test files.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 25,
  diagnose?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}${diagnose ? `\n${diagnose()}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export async function httpStatus(url: string, init?: RequestInit): Promise<number | "refused"> {
  try {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    return res.status;
  } catch {
    return "refused";
  }
}

/** A plain connection of its own (not a pool): for holding locks in an open transaction. */
export async function directClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: "reliability-test" });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}


/** Ends every connection of the service (application_name agent-memory) to `database`; returns how many. */
export async function terminateServiceBackends(database: string): Promise<number> {
  const rows = await adminQuery<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = $1 and application_name = 'agent-memory' and pid <> pg_backend_pid()`,
    [database],
  );
  return rows[0]!.n;
}

/** Backends of the service waiting on a lock in `database`. */
export async function serviceBackendsWaitingOnLocks(database: string): Promise<number> {
  const rows = await adminQuery<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
      where datname = $1 and application_name = 'agent-memory' and wait_event_type = 'Lock'`,
    [database],
  );
  return rows[0]!.n;
}

export interface RawAnswer {
  status: number | "reset";
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request with exactly these headers and bytes (fetch would fix some of
 * them up), optionally from another loopback address (127.0.0.2, …) to act as a
 * different client.
 */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const url = new URL(baseUrl);
    const req = request(
      { host: url.hostname, port: url.port, path, method: options.method ?? "POST", headers: options.headers ?? {}, localAddress: options.localAddress },
      (res) => {
        let data = "";
        res.on("data", (chunk: Buffer) => (data += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      },
    );
    // The server may answer and close before an oversized request is fully sent.
    req.on("error", () => resolve({ status: "reset", headers: {}, body: "" }));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
