// The HTTP front: body size, origins and hosts, proxies, per-token and
// per-address limits, the metrics token, request deadlines and connections.
import { MCP_QUEUE_PER_AGENT, REFUSED_REQUEST_WAIT_MS } from "../limits.js";
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
      const subnets = entries.filter((entry) => !TRUST_PROXY_NAMES.includes(entry));
      const bad = subnets.filter((entry) => !isAddressOrSubnet(entry));
      const wide = subnets.filter((entry) => isAddressOrSubnet(entry) && tooWide(entry));
      const quoted = (list: string[]) => list.map((b) => `"${b}"`).join(", ");
      if (bad.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `TRUST_PROXY must be a hop count (1) or a comma-separated list of proxy addresses, subnets or ${TRUST_PROXY_NAMES.join("/")}; not ${quoted(bad)}.`,
        });
      }
      if (wide.length > 0) {
        ctx.addIssue({
          code: "custom",
          message:
            `TRUST_PROXY: ${quoted(wide)} cover too many addresses: a client inside them could write any address into X-Forwarded-For ` +
            `and get around the per-address limits. IPv4 prefixes must be /${MIN_IPV4_PREFIX} or longer and IPv6 prefixes /${MIN_IPV6_PREFIX} or longer ` +
            `(IPv4-mapped ::ffff: subnets /${96 + MIN_IPV4_PREFIX}). Set the number of proxies in front of the service (TRUST_PROXY=1) ` +
            `or their own addresses/subnets (e.g. TRUST_PROXY=10.0.0.0/8,loopback), or private ranges by name (${TRUST_PROXY_NAMES.join(", ")}).`,
        });
      }
      return bad.length > 0 || wide.length > 0 ? z.NEVER : entries;
    });

/**
 * The widest subnets TRUST_PROXY believes. Proxies sit in a network of their
 * own; a prefix shorter than these (0.0.0.0/1 with 128.0.0.0/1 covers every
 * address) would make any client a "proxy" whose X-Forwarded-For picks its own
 * req.ip, so the per-address limits (failed logins) could be dodged by rotating it.
 */
const MIN_IPV4_PREFIX = 8;
const MIN_IPV6_PREFIX = 32;

function isAddressOrSubnet(value: string): boolean {
  const [address, prefix, ...rest] = value.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Whether a well-formed address/subnet is wider than the minimum prefix of its family. */
function tooWide(value: string): boolean {
  const [address = "", prefix] = value.split("/");
  if (prefix === undefined) return false;
  const bits = Number(prefix);
  if (isIP(address) === 4) return bits < MIN_IPV4_PREFIX;
  // An IPv4-mapped subnet (::ffff:a.b.c.d/96 and longer) covers IPv4 clients too
  // (proxy-addr compares them as IPv4): its IPv4 part must be /8 or longer.
  const mapped = new URL(`http://[${address}]`).hostname.startsWith("[::ffff:");
  if (mapped && bits >= 96) return bits - 96 < MIN_IPV4_PREFIX;
  return bits < MIN_IPV6_PREFIX;
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
  /** Further requests of that agent that wait their turn; beyond them, 429 (MCP_QUEUE_PER_AGENT, a bound of the design: a test may shrink it). */
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
    /** How long a connection past either bound may take to send the request its 503 answers (REFUSED_REQUEST_WAIT_MS, a bound of the design: a test may shrink it). */
    refusedRequestWaitMs: number;
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
    mcpQueuePerAgent: MCP_QUEUE_PER_AGENT,
    metricsToken: e.METRICS_TOKEN || undefined,
    http: {
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerAddress: Math.min(
        e.HTTP_MAX_CONNECTIONS,
        e.HTTP_MAX_CONNECTIONS_PER_ADDRESS ?? (e.TRUST_PROXY === false ? DEFAULT_CONNECTIONS_PER_ADDRESS : e.HTTP_MAX_CONNECTIONS),
      ),
      refusedRequestWaitMs: REFUSED_REQUEST_WAIT_MS,
    },
    workers: e.WORKERS,
  };
}
