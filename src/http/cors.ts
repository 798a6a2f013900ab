// CORS for browser-based MCP clients, only for origins in ALLOWED_ORIGINS.
// Without an allow-list nothing is added: agents and CLIs send no Origin, and
// originCheck refuses browsers. With one, preflight (OPTIONS) is answered and
// the headers a Streamable HTTP client needs are allowed and exposed.
import cors from "cors";
import type { RequestHandler } from "express";

export function corsForAllowedOrigins(allowedOrigins: string[]): RequestHandler | undefined {
  if (allowedOrigins.length === 0) return undefined;
  const origins = allowedOrigins.map((o) => o.replace(/\/+$/, ""));
  return cors({
    origin: origins.includes("*") ? true : origins,
    methods: ["POST", "GET", "DELETE"],
    allowedHeaders: ["Authorization", "Content-Type", "Accept", "Mcp-Protocol-Version", "Mcp-Session-Id", "Last-Event-ID"],
    exposedHeaders: ["Mcp-Session-Id", "WWW-Authenticate", "Retry-After", "X-Request-Id"],
    maxAge: 600,
  });
}
