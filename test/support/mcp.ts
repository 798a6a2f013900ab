// MCP helpers shared by the tests and the benchmark (bench/ imports them from here).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The headers every POST /mcp needs (Streamable HTTP refuses others with 406/415). */
export const MCP_HEADERS = { Accept: "application/json, text/event-stream", "Content-Type": "application/json" };

/** The text items of a tool result, joined by newlines. */
export function textOf(result: unknown): string {
  const r = result as CallToolResult;
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
