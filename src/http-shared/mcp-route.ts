// POST /mcp (and /oauth/mcp, which mounts the same handler): stateless Streamable
// HTTP. A fresh McpServer and transport per request (the SDK forbids reusing either
// across requests), so any replica can answer any call and nothing leaks between
// clients. The transport is ours (mcp-transport.ts): the SDK's checks, without the
// web Request/Response round trip.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Request, RequestHandler, Response } from "express";
import type { AppDeps } from "../app-deps.js";
import { attachTrace, callerFromAuthInfo, type RequestTrace, traceFromAuthInfo } from "../auth/caller.js";
import { createMcpServerFactory } from "../server/server.js";
import { JsonRpcCode, requestId, sendJsonRpcError } from "./json-rpc.js";
import { JsonResponseTransport } from "./mcp-transport.js";
import { setRequestWork } from "./request-work.js";
import type { McpTracing } from "../tracing/mcp-tracing.js";

/**
 * A tools/call whose `arguments` is present but not a JSON object. The SDK
 * validates the whole request against its schema and, failing that, answers
 * -32603 (internal error) with zod's issue list as the message; the caller made
 * the mistake, so it gets -32602 (invalid params) and one sentence.
 */
function hasNonObjectArguments(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null || !("arguments" in params)) return false;
  const args = (params as { arguments: unknown }).arguments;
  return args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args));
}

/** One request's transport and how it is handed the request. */
export interface McpPostTransport {
  transport: Transport;
  handle(parsedBody: unknown): Promise<void>;
  /** Whether the answer is out (nothing left to cancel); absent: always close. */
  answered?: () => boolean;
}
/** Production uses ours; the differential test (test/foundation/mcp-transport.test.ts) builds the same app around the SDK's. */
export type McpTransportFactory = (req: Request, res: Response) => McpPostTransport;

const jsonResponseTransport: McpTransportFactory = (req, res) => {
  const transport = new JsonResponseTransport(req, res, () => (req.auth ? traceFromAuthInfo(req.auth)?.databaseUnavailable : undefined));
  return { transport, handle: (body) => transport.handlePost(body), answered: () => transport.answered };
};

export function mcpPostHandler(deps: AppDeps, makeTransport: McpTransportFactory = jsonResponseTransport): RequestHandler {
  const createMcpServer = createMcpServerFactory(deps);
  const handle = mcpPost(createMcpServer, makeTransport, deps.tracing);
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

function mcpPost(createMcpServer: ReturnType<typeof createMcpServerFactory>, makeTransport: McpTransportFactory, tracing: McpTracing | undefined) {
  return async (req: Request, res: Response, running: Set<Promise<unknown>>) => {
    // One message per POST. Protocol 2025-06-18 dropped JSON-RPC batches, and a
    // batch would let one request run many tool calls at once, past the per-token
    // rate limit and the database pool.
    if (Array.isArray(req.body)) {
      sendJsonRpcError(res, 400, JsonRpcCode.INVALID_REQUEST, "Batch requests are not supported: send one JSON-RPC message per POST.");
      return;
    }
    if (hasNonObjectArguments(req.body)) {
      sendJsonRpcError(res, 200, JsonRpcCode.INVALID_PARAMS, "tools/call arguments must be a JSON object of named arguments (e.g. {}), not an array or a single value.", requestId(req.body));
      return;
    }
    // Tools read the caller from authInfo; the trace lets the request log line
    // name the tools that ran (and the request's span what they served).
    let trace: RequestTrace | undefined;
    if (req.auth) {
      trace = { requestId: String(req.id), tools: [], running };
      attachTrace(req.auth, trace);
    }
    const server = createMcpServer(req.body);
    const { transport, handle, answered } = makeTransport(req, res);
    res.on("close", () => {
      // Closing is for a request still running when its client goes away (it
      // aborts the tool's signal). After the answer there is nothing to cancel,
      // and closing would only build the SDK's "Connection closed" McpError, stack
      // trace included, on every call; server and transport are garbage anyway.
      if (answered?.()) return;
      void transport.close();
      void server.close();
    });
    const run = async () => {
      await server.connect(transport);
      await handle(req.body);
    };
    try {
      if (!tracing) await run();
      else {
        const agent = req.auth ? callerFromAuthInfo(req.auth).name : undefined;
        await tracing.request({ body: req.body, headers: req.headers, agent, registered: createMcpServer.registered }, run, () => ({ outcome: trace?.outcome, served: trace?.served, storeId: trace?.storeId }));
      }
    } catch (error) {
      req.log.error({ err: error }, "MCP request failed");
      sendJsonRpcError(res, 500, JsonRpcCode.INTERNAL_ERROR, "Internal server error.");
    }
  };
}

/** GET (SSE stream) and DELETE (session end) have no meaning without sessions. */
export const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader("Allow", "POST");
  sendJsonRpcError(res, 405, JsonRpcCode.SERVER_ERROR, "Method not allowed: this server is stateless; send MCP messages with POST.");
};
