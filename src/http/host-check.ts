// DNS-rebinding protection, one rule for every route: a page on evil.example
// whose name resolves to 127.0.0.1 sends Host: evil.example, which is refused.
// It ran on /mcp and /console only; the OAuth endpoints (/register, the metadata
// documents) and /metrics answered any Host.
import type { RequestHandler } from "express";
import { JsonRpcCode, sendJsonRpcError } from "../mcp-endpoint/json-rpc.js";

const LOCALHOST_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The probes answer any Host: load balancers and orchestrators (a Kubernetes
 * httpGet probe) address them by IP, and they change nothing and tell nothing a
 * page could use (`ok`, or ready and the database kind).
 */
const PROBES = new Set(["/healthz", "/readyz"]);

/** Hosts accepted in the Host header: explicit config, or localhost names for a localhost bind; undefined accepts any. */
export function allowedHostnames(host: string, configured: string[]): string[] | undefined {
  if (configured.length > 0) return configured;
  if (["127.0.0.1", "localhost", "::1"].includes(host)) return LOCALHOST_NAMES;
  return undefined;
}

/** The Host name without its port ("[::1]" keeps its brackets), or undefined when the header is missing or not a host. */
function hostnameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return undefined;
  }
}

export function hostCheck(hosts: string[]): RequestHandler {
  const allowed = new Set(hosts.map((h) => h.toLowerCase()));
  return (req, res, next) => {
    if (PROBES.has(req.path)) return next();
    const hostname = hostnameOf(req.headers.host);
    if (hostname !== undefined && allowed.has(hostname)) return next();
    const message =
      `Host "${hostname ?? req.headers.host ?? ""}" is not a name of this service (DNS-rebinding protection). ` +
      `Reach it by one of its names, or add this one to ALLOWED_HOSTS if the service is meant to answer to it.`;
    // MCP clients get a JSON-RPC error; everything else the OAuth-style error object.
    if (req.path === "/mcp" || req.path === "/oauth/mcp") return sendJsonRpcError(res, 403, JsonRpcCode.SERVER_ERROR, message);
    res.status(403).json({ error: "invalid_host", error_description: message });
  };
}
