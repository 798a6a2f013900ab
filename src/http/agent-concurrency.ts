// Per-agent fairness in front of the database: on the embedded database, one
// connection serves every statement in arrival order, so an agent with 50
// requests in flight, or writing ~18 MB/s, would queue every other agent behind
// its whole backlog. Each agent may have a few MCP requests in
// progress; its further requests wait in its own queue, so other agents'
// requests reach the database between them, and past a bound they are refused
// with 429 and Retry-After. A per-minute rate limit (perTokenLimit) bounds how
// much an agent asks for; this bounds how much of the database it holds at once.
import type { Request, RequestHandler, Response } from "express";
import pLimit, { type LimitFunction } from "p-limit";
import type { AppDeps } from "../app-deps.js";
import { type Caller, maybeCallerFromAuthInfo } from "../auth/caller.js";
import { JsonRpcCode, sendJsonRpcError } from "../mcp-endpoint/json-rpc.js";
import { requestWork, responseClosed } from "../mcp-endpoint/request-work.js";

/**
 * The embedded database runs one statement at a time, so every request in
 * progress is one more that another agent's call waits behind: one per agent
 * (ten agents sending 500 calls at once kept a bystander's call under ~0.3 s
 * with one, ~0.55 s with two, ~0.9 s with four).
 */
export const EMBEDDED_CONCURRENT_PER_AGENT = 1;

/**
 * MCP_CONCURRENT_PER_AGENT as applied: the configured number, or by default 1
 * on the embedded database and half the connection pool (at least 1) on
 * Postgres, so that no agent holds every connection while others wait in the
 * pool's queue behind it. 0: no limit.
 */
function concurrentPerAgent(configured: number | "auto", db: Pick<AppDeps["db"], "kind" | "poolStats">): number {
  if (configured !== "auto") return configured;
  return db.kind === "pglite" ? EMBEDDED_CONCURRENT_PER_AGENT : Math.max(1, Math.floor(db.poolStats().max / 2));
}

/** Seconds a refused agent is told to wait: by then some of its requests in progress have usually finished. */
const RETRY_AFTER_SECONDS = 1;

/**
 * After authentication, before the body is read: a waiting request holds its
 * body in the socket (beyond what the socket buffers, the sender is slowed by
 * TCP, not buffered in memory). A request whose client went away while it
 * waited is dropped unrun; one whose client aborts while it runs keeps its slot
 * until its work has ended (src/mcp-endpoint/request-work.ts).
 */
/** Where a limited request comes from: its caller, and how to refuse it in that surface's language. */
interface LimitedSurface {
  callerOf(req: Request, res: Response): Caller | undefined;
  refuse(res: Response, message: string): void;
}

/**
 * One set of per-agent queues for every surface that reaches the database on an
 * agent's behalf (MCP on /mcp and /oauth/mcp, the console's pages), so that an
 * agent's MCP calls and its person's console tabs share the same few slots.
 * Undefined when the limit is off.
 */
export function agentConcurrencyLimiter(deps: Pick<AppDeps, "config" | "db" | "metrics">): ((surface: LimitedSurface) => RequestHandler) | undefined {
  const running = concurrentPerAgent(deps.config.mcpConcurrentPerAgent, deps.db);
  if (running === 0) return undefined;
  const waiting = deps.config.mcpQueuePerAgent;
  // One queue per agent; an agent's entry goes once nothing of it runs or waits.
  const queues = new Map<number, LimitFunction>();

  return (surface) => (req: Request, res: Response, next) => {
    const caller = surface.callerOf(req, res);
    if (!caller) return next();
    // Gone during authentication: its close was before anyone here listened.
    if (res.closed) return;
    let queue = queues.get(caller.agentId);
    if (!queue) {
      queue = pLimit(running);
      queues.set(caller.agentId, queue);
    }
    if (queue.activeCount + queue.pendingCount >= running + waiting) {
      deps.metrics.rateLimited.inc({ limit: "per_agent_concurrency" });
      res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
      surface.refuse(
        res,
        `Too many requests at once from agent "${caller.name}": ${running} run at a time and ${waiting} more may wait; this one was refused. ` +
          `Wait for your earlier calls to finish (Retry-After: ${RETRY_AFTER_SECONDS} s), then send fewer at once.`,
      );
      return;
    }
    const mine = queue;
    const waits = mine.activeCount >= running;
    if (waits) deps.metrics.mcpWaiting.inc();
    void mine(async () => {
      if (waits) deps.metrics.mcpWaiting.dec();
      // Gone while waiting (client closed, or timed out): nothing to run.
      if (res.closed) return;
      next();
      await responseClosed(res);
      // A client that aborts closes the response at once, while the tool it
      // called still runs its statements: the slot is the agent's until they end.
      await requestWork(res);
    }).finally(() => {
      // Later, so that the queue has counted this request out.
      setImmediate(() => {
        if (mine.activeCount === 0 && mine.pendingCount === 0 && queues.get(caller.agentId) === mine) queues.delete(caller.agentId);
      });
    });
  };
}

/** MCP's side: the bearer token's agent, refused with a JSON-RPC error. */
export const MCP_SURFACE: LimitedSurface = {
  callerOf: (req) => maybeCallerFromAuthInfo(req.auth),
  refuse: (res, message) => sendJsonRpcError(res, 429, JsonRpcCode.SERVER_ERROR, message),
};
