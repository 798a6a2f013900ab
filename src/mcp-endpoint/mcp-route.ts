// POST /mcp (and /oauth/mcp, which mounts the same endpoint): both eras of MCP
// from one server factory (src/mcp-sdk/endpoint.ts), a fresh server per request,
// so any replica can answer any call and nothing leaks between clients.
// Everything per request is the service's and the same for both eras: the
// caller (the bearer check before this), its queue, the request's notes for
// the log line and the trace span, the receipts its answers record, and the
// one answer a request gets when the database cannot serve it.
import type { Request, RequestHandler, Response } from "express";
import type { AppDeps } from "../app-deps.js";
import { attachTrace, callerFromAuthInfo, type RequestTrace, traceFromAuthInfo } from "../auth/caller.js";
import { type AuthInfo, mcpEndpoint } from "../mcp-sdk/index.js";
import { MESSAGE_MAX_NESTING } from "../limits.js";
import { createMcpServerFactory } from "../server/server.js";
import { databaseUnavailableAnswer, JsonRpcCode, requestId, sendJsonRpcError } from "./json-rpc.js";
import { setRequestWork } from "./request-work.js";

/**
 * A tools/call whose `arguments` is present but not a JSON object. The SDK
 * validates the whole request against its schema and, failing that, answers
 * with zod's issue list as the message; the caller made the mistake, so it gets
 * -32602 (invalid params) and one sentence.
 */
function hasNonObjectArguments(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null || !("arguments" in params)) return false;
  const args = (params as { arguments: unknown }).arguments;
  return args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
}

/**
 * Whether arrays and objects nest deeper than `max` levels in a parsed JSON
 * value: walked without recursion, stopping at the first one too deep.
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (pending.length > 0) {
    const { value: next, depth } = pending.pop()!;
    if (typeof next !== "object" || next === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(next)) if (typeof child === "object" && child !== null) pending.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** The MCP endpoint's POST handler, shared by /mcp and /oauth/mcp. */
export function mcpPost(deps: AppDeps): RequestHandler {
  const createServer = createMcpServerFactory(deps);
  const endpoint = mcpEndpoint({
    factory: ({ authInfo }) => createServer(traceFromAuthInfo(authInfo)?.message),
    // A callback that lost the database answers as the token check does then: 503, Retry-After (json-rpc.ts).
    replaceAnswer: (authInfo: AuthInfo | undefined) => {
      const unavailable = traceFromAuthInfo(authInfo)?.databaseUnavailable;
      return unavailable === undefined ? undefined : databaseUnavailableAnswer(unavailable, requestId(traceFromAuthInfo(authInfo)?.message));
    },
    maxBodyBytes: deps.config.maxBodyBytes,
    onerror: (error) => deps.logger.debug({ err: error }, "MCP request refused by the SDK"),
  });
  const tracing = deps.tracing;

  const handle = async (req: Request, res: Response, running: Set<Promise<unknown>>) => {
    // One message per POST. Protocol 2025-06-18 dropped JSON-RPC batches, and a
    // batch would let one request run many tool calls at once, past the per-token
    // rate limit and the database pool.
    if (Array.isArray(req.body)) {
      sendJsonRpcError(res, 400, JsonRpcCode.INVALID_REQUEST, "Batch requests are not supported: send one JSON-RPC message per POST.");
      return;
    }
    if (nestsDeeperThan(req.body, MESSAGE_MAX_NESTING)) {
      sendJsonRpcError(res, 400, JsonRpcCode.INVALID_REQUEST, `The message nests arrays and objects more than ${MESSAGE_MAX_NESTING} levels deep; no MCP message of this service needs more than a few.`, requestId(req.body));
      return;
    }
    if (hasNonObjectArguments(req.body)) {
      sendJsonRpcError(res, 200, JsonRpcCode.INVALID_PARAMS, "tools/call arguments must be a JSON object of named arguments (e.g. {}), not an array or a single value.", requestId(req.body));
      return;
    }
    // Tools read the caller from the request's AuthInfo; the trace lets the request log line
    // name the tools that ran (and the request's span what they served).
    let trace: RequestTrace | undefined;
    if (req.auth) {
      trace = { requestId: String(req.id), tools: [], running, message: req.body };
      attachTrace(req.auth, trace);
    }
    const run = () => endpoint.handle(req, res);
    try {
      if (!tracing) await run();
      else {
        const agent = req.auth ? callerFromAuthInfo(req.auth).name : undefined;
        await tracing.request({ body: req.body, headers: req.headers, agent, registered: createServer.registered }, run, () => ({ outcome: trace?.outcome, served: trace?.served, storeId: trace?.storeId }));
      }
    } catch (error) {
      req.log.error({ err: error }, "MCP request failed");
      sendJsonRpcError(res, 500, JsonRpcCode.INTERNAL_ERROR, "Internal server error.");
    }
  };

  return (req: Request, res: Response) => {
    // The client went away before its turn (while its token was checked, or
    // while it waited for its agent's slot): nothing to run for nobody.
    if (res.closed) return;
    const running = new Set<Promise<unknown>>();
    const work = handle(req, res, running);
    // Over once the answer is out and every callback it started has ended
    // (after an abort the handler returns at once; the tool goes on).
    setRequestWork(res, work.then(() => Promise.allSettled([...running])));
    return work;
  };
}

/** GET (SSE stream) and DELETE (session end) have no meaning without sessions. */
export const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader("Allow", "POST");
  sendJsonRpcError(res, 405, JsonRpcCode.SERVER_ERROR, "Method not allowed: this server is stateless; send MCP messages with POST.");
};
