// JSON-RPC error bodies for HTTP-level refusals, so MCP clients get a parseable
// answer (never an HTML page) whatever went wrong.
import type { ServerResponse } from "node:http";
import type { Response as ExpressResponse } from "express";

export const JsonRpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

export function sendJsonRpcError(res: ExpressResponse, status: number, code: number, message: string, id: string | number | null = null): void {
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

/** Seconds a client waits before it retries a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The one answer of an MCP request while the database cannot serve it (the
 * token could not be checked, or a callback lost the database): HTTP 503 with
 * Retry-After and a JSON-RPC error saying what happened and what to do, whatever
 * the request was. Never a tool error for some calls and an HTTP error for
 * others (docs/operations.md).
 */
export function sendDatabaseUnavailable(res: ServerResponse, message: string, id: string | number | null): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(503, DATABASE_UNAVAILABLE_HEADERS).end(databaseUnavailableBody(message, id));
}

/** The same answer as a web Response (where the MCP endpoint builds its answers). */
export function databaseUnavailableAnswer(message: string, id: string | number | null): Response {
  return new Response(databaseUnavailableBody(message, id), { status: 503, headers: DATABASE_UNAVAILABLE_HEADERS });
}

const DATABASE_UNAVAILABLE_HEADERS = { "Content-Type": "application/json", "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) };
const databaseUnavailableBody = (message: string, id: string | number | null) =>
  JSON.stringify({ jsonrpc: "2.0", error: { code: JsonRpcCode.SERVER_ERROR, message, data: { retryable: true } }, id });
