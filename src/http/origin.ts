// The MCP spec asks servers to refuse a request whose Origin header is present but
// not allowed (a browser page trying to reach the service). Requests without an
// Origin (agents, CLIs, servers) are unaffected.
import type { RequestHandler } from "express";

export function originCheck(allowedOrigins: string[]): RequestHandler {
  const allowed = new Set(allowedOrigins.map((o) => o.replace(/\/+$/, "").toLowerCase()));
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (allowed.has("*") || allowed.has(origin.toLowerCase())) return next();
    res.status(403).json({
      jsonrpc: "2.0",
      error: { code: -32000, message: `Origin ${origin} is not allowed. Add it to ALLOWED_ORIGINS to permit browser clients from it.` },
      id: null,
    });
  };
}
