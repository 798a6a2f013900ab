// JSON-RPC error bodies for HTTP-level refusals, so MCP clients get a parseable
// answer (never an HTML page) whatever went wrong.
import type { Response } from "express";

export const JsonRpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

export function sendJsonRpcError(res: Response, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
}
