// JSON-RPC error bodies for HTTP-level refusals, so MCP clients get a parseable
// answer (never an HTML page) whatever went wrong.
import type { Response } from "express";

export const JsonRpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

export function sendJsonRpcError(res: Response, status: number, code: number, message: string, id: string | number | null = null): void {
  if (res.headersSent) return;
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id });
}

/**
 * The message's id when it is a request (string or number), else null: an error
 * answer to a request must carry its id for the client to match it.
 */
export function requestId(body: unknown): string | number | null {
  if (typeof body !== "object" || body === null || !("id" in body)) return null;
  const id = (body as { id: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
