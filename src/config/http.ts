// The HTTP front: body size, origins and hosts, proxies, per-token and
// per-address limits, the metrics token, request deadlines and connections.
import { isIP } from "node:net";
import * as z from "zod/v4";
import { intFrom, listFrom, optionalIntFrom } from "./parse.js";

/**
 * Express "trust proxy" in the forms that cannot be spoofed: a hop count or a
 * list of proxy addresses/subnets. `true` would trust whatever X-Forwarded-For a
 * client writes, so the per-address limits would key on a header the caller
 * controls (unlimited guessing, locking out any chosen address): refused.
 */
const TRUST_PROXY_NAMES = ["loopback", "linklocal", "uniquelocal"];
const trustProxyFrom = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx): false | number | string[] => {
      if (raw === undefined || raw === "" || /^(false|0)$/i.test(raw)) return false;
      if (/^(true|yes|on)$/i.test(raw)) {
        ctx.addIssue({
          code: "custom",
          message:
            `TRUST_PROXY=${raw} would trust any client-written X-Forwarded-For. Set the number of proxies in front of the service ` +
            `(TRUST_PROXY=1 for one load balancer) or their addresses/subnets (e.g. TRUST_PROXY=10.0.0.0/8,loopback).`,
        });
        return z.NEVER;
      }
      if (/^\d+$/.test(raw)) return Number(raw);
      const entries = raw.split(",").map((s) => s.trim()).filter(Boolean);
      const bad = entries.filter((entry) => !TRUST_PROXY_NAMES.includes(entry) && !isAddressOrSubnet(entry));
      if (bad.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `TRUST_PROXY must be a hop count (1) or a comma-separated list of proxy addresses, subnets or ${TRUST_PROXY_NAMES.join("/")}; not ${bad.map((b) => `"${b}"`).join(", ")}.`,
        });
        return z.NEVER;
      }
      return entries;
    });

function isAddressOrSubnet(value: string): boolean {
  const [address, prefix, ...rest] = value.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const METRICS_TOKEN_MIN_CHARS = 32;
/**
 * Browsers open ~6 per origin and MCP clients a few each; one host running a
 * team of agents, or a team behind one NAT, sends hundreds of calls at once
 * (ten agents, 500 calls). 1,024 leaves room for that, and one address still
 * holds at most a quarter of the default HTTP_MAX_CONNECTIONS.
 */
const DEFAULT_CONNECTIONS_PER_ADDRESS = 1024;

export const httpEnv = z.object({
  MAX_BODY_BYTES: intFrom("MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
  ALLOWED_ORIGINS: listFrom(),
  ALLOWED_HOSTS: listFrom(),
  TRUST_PROXY: trustProxyFrom(),
  RATE_LIMIT_PER_MINUTE: intFrom("RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000),
  AUTH_FAILURES_PER_MINUTE: intFrom("AUTH_FAILURES_PER_MINUTE", 30, 0, 1_000_000),
  // Empty: decided by the database (src/http/agent-concurrency.ts); 0: off.
  MCP_CONCURRENT_PER_AGENT: optionalIntFrom("MCP_CONCURRENT_PER_AGENT", 0, 10_000),
  MCP_QUEUE_PER_AGENT: intFrom("MCP_QUEUE_PER_AGENT", 64, 0, 100_000),
  METRICS_TOKEN: z
    .string()
    .optional()
    .default("")
    .refine((v) => v === "" || v.length >= METRICS_TOKEN_MIN_CHARS, {
      message: `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_CHARS} characters (it is compared per request and guessable when short); generate one with: openssl rand -hex 32`,
    }),
  HTTP_REQUEST_TIMEOUT_MS: intFrom("HTTP_REQUEST_TIMEOUT_MS", 30_000, 1000, 3_600_000),
  HTTP_MAX_CONNECTIONS: intFrom("HTTP_MAX_CONNECTIONS", 4096, 1, 1_000_000),
  // Empty: 1,024, or HTTP_MAX_CONNECTIONS behind a proxy (TRUST_PROXY), which is one address.
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: optionalIntFrom("HTTP_MAX_CONNECTIONS_PER_ADDRESS", 1, 1_000_000),
  WORKERS: intFrom("WORKERS", 1, 1, 64),
});

export interface HttpConfig {
  maxBodyBytes: number;
  allowedOrigins: string[];
  allowedHosts: string[];
  /** Express "trust proxy": false (off), a hop count or proxy addresses/subnets; never `true`. */
  trustProxy: false | number | string[];
  /** Tool calls per token per minute; 0 = unlimited. */
  rateLimitPerMinute: number;
  /** Failed authentications per client address per minute; 0 = unlimited. */
  authFailuresPerMinute: number;
  /**
   * MCP requests one agent may have in progress at once; "auto" decides by the
   * database (embedded: 1; Postgres: half the pool), 0 = no limit.
   */
  mcpConcurrentPerAgent: number | "auto";
  /** Further requests of that agent that wait their turn; beyond them, 429. */
  mcpQueuePerAgent: number;
  /** When set, GET /metrics needs `Authorization: Bearer <this>`. */
  metricsToken: string | undefined;
  http: {
    /** Whole-request deadline (headers and body); also the headers deadline. */
    requestTimeoutMs: number;
    /** Concurrent connections the process serves; more are answered 503 with Retry-After. */
    maxConnections: number;
    /** Concurrent connections served per client address (the socket's: a proxy is one); more are answered 503. */
    maxConnectionsPerAddress: number;
  };
  /** Serving processes sharing the port (node:cluster); more than 1 needs DATABASE_URL. */
  workers: number;
}

export function httpConfig(e: z.output<typeof httpEnv>): HttpConfig {
  return {
    maxBodyBytes: e.MAX_BODY_BYTES,
    allowedOrigins: e.ALLOWED_ORIGINS,
    allowedHosts: e.ALLOWED_HOSTS,
    trustProxy: e.TRUST_PROXY,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    mcpConcurrentPerAgent: e.MCP_CONCURRENT_PER_AGENT ?? "auto",
    mcpQueuePerAgent: e.MCP_QUEUE_PER_AGENT,
    metricsToken: e.METRICS_TOKEN || undefined,
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: Math.min(
        e.HTTP_MAX_CONNECTIONS,
        e.HTTP_MAX_CONNECTIONS_PER_ADDRESS ?? (e.TRUST_PROXY === false ? DEFAULT_CONNECTIONS_PER_ADDRESS : e.HTTP_MAX_CONNECTIONS),
      ),
    },
    workers: e.WORKERS,
  };
}
