// The MCP spec asks servers to refuse a request whose Origin header is present but
// not allowed (a browser page trying to reach the service). Requests without an
// Origin (agents, CLIs, servers) are unaffected.
//
// Allowed: ALLOWED_ORIGINS, PUBLIC_URL's origin, and the service's own origin as the
// request names it. A page the service itself serves is same-origin: its Origin's
// host is the request's Host. That is trusted only where the Host check runs (a
// localhost bind or ALLOWED_HOSTS, host-check.ts): there the Host is one of the
// service's names, so a rebinding page (Origin and Host both evil.example) never
// gets this far. Elsewhere any Host is accepted, and a matching Origin proves nothing.
import type { RequestHandler } from "express";

export interface OriginRule {
  allowedOrigins: string[];
  publicUrl: string | undefined;
  /** Whether the Host header was checked against the service's names (hostCheck runs before this). */
  hostChecked: boolean;
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return undefined;
  }
};

export function originCheck(rule: OriginRule): RequestHandler {
  const allowed = new Set(rule.allowedOrigins.map((o) => o.replace(/\/+$/, "").toLowerCase()));
  const publicOrigin = rule.publicUrl ? originOf(rule.publicUrl) : undefined;
  if (publicOrigin) allowed.add(publicOrigin);
  const sameOrigin = (origin: string, host: string | undefined): boolean => {
    if (!rule.hostChecked || !host) return false;
    try {
      const url = new URL(origin);
      return (url.protocol === "http:" || url.protocol === "https:") && url.host === new URL(`${url.protocol}//${host}`).host;
    } catch {
      return false;
    }
  };
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (allowed.has("*") || allowed.has(origin.toLowerCase()) || sameOrigin(origin, req.headers.host)) return next();
    res.status(403).json({
      jsonrpc: "2.0",
      error: { code: -32000, message: `Origin ${origin} is not allowed. Add it to ALLOWED_ORIGINS to permit browser clients from it.` },
      id: null,
    });
  };
}
