// The MCP server span of each request (docs/tracing.md), as the MCP route sees
// it: an interface here, its OpenTelemetry implementation in mcp-spans.ts,
// loaded (with @opentelemetry/api) only when tracing is on. Off, AppDeps holds
// no tracing and the route runs the request as it is.

import type { McpTracing } from "./types.js";

export type { McpRequestInfo, McpRequestResult, McpTracing, MemoryOperation } from "./types.js";

/** The OpenTelemetry implementation, loaded on first use when tracing is on. */
export async function loadMcpTracing(): Promise<McpTracing> {
  const { otelMcpTracing } = await import("./mcp-spans.js");
  return otelMcpTracing();
}
