// One MCP endpoint for both eras of the protocol, from one server factory:
// - 2026-07-28 requests (a per-request `_meta` envelope) through the SDK's
//   createMcpHandler: server/discover, the standard headers, cache fields,
//   resultType, answered as one JSON body (no handler notifies mid-call);
// - 2025-era requests (initialize, then calls without an envelope) statelessly,
//   a fresh server and transport per request, answered as one JSON body as
//   before (enableJsonResponse), never an SSE stream for a single answer.
// The SDK decides which era a request speaks (isLegacyRequest runs the
// handler's own classification). Everything the service does per request
// (auth, scopes, queues, receipts, traces) sits around this, the same for both.
import type { IncomingMessage, ServerResponse } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { type AuthInfo, createMcpHandler, isLegacyRequest, type McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

/** What a server is built for: one request of one caller, in one era. */
export interface ServedRequest {
  era: "legacy" | "modern";
  authInfo: AuthInfo | undefined;
}

export interface McpEndpointOptions {
  /** A fresh server for one request. */
  factory(request: ServedRequest): McpServer;
  /**
   * Called once the request's answer is ready: a Response to send instead (the
   * service's own answer when the request could not be served, e.g. its
   * database was away), or undefined to send the SDK's.
   */
  replaceAnswer?(authInfo: AuthInfo | undefined, answer: Response): Response | undefined;
  /** The largest body read (MAX_BODY_BYTES); Express has parsed it before. */
  maxBodyBytes: number;
  onerror(error: Error): void;
}

export interface McpEndpoint {
  /** Serves one POST whose body Express has parsed (req.body) and whose caller is req.auth. */
  handle(req: IncomingMessage & { auth?: AuthInfo; body?: unknown }, res: ServerResponse): Promise<void>;
  /** Ends the in-flight 2026-07-28 exchanges (shutdown). */
  close(): Promise<void>;
}

export function mcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const modern = createMcpHandler(({ authInfo }) => options.factory({ era: "modern", authInfo }), {
    legacy: "reject",
    // The default ("auto") answers with one JSON body unless a handler notifies
    // mid-call, which none does (no progress, no logging); "json" would say the
    // same with a console warning at every start.
    maxRequestBodySize: options.maxBodyBytes,
    onerror: options.onerror,
  });

  const legacy = async (request: Request, parsedBody: unknown, authInfo: AuthInfo | undefined): Promise<Response> => {
    const server = options.factory({ era: "legacy", authInfo });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody, ...(authInfo ? { authInfo } : {}) });
    } finally {
      void transport.close();
      void server.close();
    }
  };

  const serve = async (request: Request, fetchOptions?: { authInfo?: AuthInfo; parsedBody?: unknown }): Promise<Response> => {
    const { authInfo, parsedBody } = fetchOptions ?? {};
    const answer = (await isLegacyRequest(request, parsedBody)) ? await legacy(request, parsedBody, authInfo) : await modern.fetch(request, fetchOptions);
    return options.replaceAnswer?.(authInfo, answer) ?? answer;
  };

  const node = toNodeHandler({ fetch: serve }, { onerror: options.onerror, maxRequestBodySize: options.maxBodyBytes });
  return {
    handle: (req, res) => node(req, res, req.body),
    close: () => modern.close(),
  };
}
