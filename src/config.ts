// The one place that reads the environment. Everything else receives a Config.
// Parsing fails fast with a message naming each bad variable, so a typo in a
// deployment shows up at start-up rather than as odd behaviour later.
import { isIP } from "node:net";
import { join } from "node:path";
import * as z from "zod/v4";

const DEFAULT_PORT = 8080;
export const FIRST_TOKEN_FILE_NAME = "owner-token";

const intFrom = (name: string, def: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return def;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from ${min} to ${max}, got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

const listFrom = () =>
  z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    );

const boolFrom = (name: string, def: boolean) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return def;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      ctx.addIssue({ code: "custom", message: `${name} must be true or false, got "${raw}"` });
      return z.NEVER;
    });

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

const EnvSchema = z.object({
  HOST: z.string().trim().min(1).optional().default("127.0.0.1"),
  PORT: intFrom("PORT", DEFAULT_PORT, 0, 65535),
  PUBLIC_URL: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === "" || /^https?:\/\/[^\s]+$/.test(v), {
      message: "PUBLIC_URL must be an http(s) URL such as https://memory.example.com",
    }),
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === "" || /^postgres(ql)?:\/\//.test(v), {
      message: "DATABASE_URL must start with postgres:// or postgresql://",
    }),
  AGENT_MEMORY_DATA_DIR: z.string().trim().min(1).optional().default("./.agent-memory"),
  DB_POOL_MAX: intFrom("DB_POOL_MAX", 10, 1, 1000),
  DB_CONNECT_TIMEOUT_MS: intFrom("DB_CONNECT_TIMEOUT_MS", 5000, 100, 600_000),
  DB_STATEMENT_TIMEOUT_MS: intFrom("DB_STATEMENT_TIMEOUT_MS", 10_000, 100, 3_600_000),
  DB_LOCK_TIMEOUT_MS: intFrom("DB_LOCK_TIMEOUT_MS", 3000, 10, 600_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional().default("info"),
  MAX_BODY_BYTES: intFrom("MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
  ALLOWED_ORIGINS: listFrom(),
  ALLOWED_HOSTS: listFrom(),
  TRUST_PROXY: trustProxyFrom(),
  RATE_LIMIT_PER_MINUTE: intFrom("RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000),
  AUTH_FAILURES_PER_MINUTE: intFrom("AUTH_FAILURES_PER_MINUTE", 30, 0, 1_000_000),
  METRICS_TOKEN: z
    .string()
    .optional()
    .default("")
    .refine((v) => v === "" || v.length >= METRICS_TOKEN_MIN_CHARS, {
      message: `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_CHARS} characters (it is compared per request and guessable when short); generate one with: openssl rand -hex 32`,
    }),
  HTTP_REQUEST_TIMEOUT_MS: intFrom("HTTP_REQUEST_TIMEOUT_MS", 30_000, 1000, 3_600_000),
  HTTP_MAX_CONNECTIONS: intFrom("HTTP_MAX_CONNECTIONS", 1000, 1, 1_000_000),
  LEDGER_DEFAULT_SCOPE: z
    .string()
    .trim()
    .optional()
    .default("shared")
    .refine((v) => /^[a-z0-9][a-z0-9_-]{0,63}$/.test(v), { message: "LEDGER_DEFAULT_SCOPE must be a scope name (lowercase letters, digits, _ or -), e.g. shared" }),
  LEDGER_MAX_OPEN_CLAIMS_PER_AGENT: intFrom("LEDGER_MAX_OPEN_CLAIMS_PER_AGENT", 100, 1, 1_000_000),
  FIRST_TOKEN_FILE: z.string().trim().optional().default(""),
  FACT_BODY_MAX_CHARS: intFrom("FACT_BODY_MAX_CHARS", 16_000, 100, 1_000_000),
  FACT_DUPLICATE_WARNING: boolFrom("FACT_DUPLICATE_WARNING", true),
  STALE_AFTER_DAYS: intFrom("STALE_AFTER_DAYS", 180, 1, 36_500),
  GRAPH_TEXT_MAX_CHARS: intFrom("GRAPH_TEXT_MAX_CHARS", 4096, 100, 1_000_000),
  // 100,000 characters is about 25,000 tokens: a read leaves an agent most of its
  // context to work in; larger graphs come in further calls (the answer says how).
  GRAPH_ANSWER_MAX_CHARS: intFrom("GRAPH_ANSWER_MAX_CHARS", 100_000, 10_000, 100_000_000),
  SHUTDOWN_TIMEOUT_MS: intFrom("SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
  FIRST_START_OWNER: boolFrom("FIRST_START_OWNER", true),
  CONSOLE_SESSION_MINUTES: intFrom("CONSOLE_SESSION_MINUTES", 720, 1, 43_200),
  OAUTH_MODE: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "" || raw === "off") return "off" as const;
      if (raw === "builtin" || raw === "external") return raw;
      ctx.addIssue({ code: "custom", message: `OAUTH_MODE must be empty (off), builtin or external, got "${raw}"` });
      return z.NEVER;
    }),
  OAUTH_ISSUER: z.string().trim().optional().default(""),
  OAUTH_AUDIENCE: z.string().trim().optional().default(""),
  OAUTH_AGENT_CLAIM: z.string().trim().min(1).optional().default("agent"),
  OAUTH_JWKS_URL: z.string().trim().optional().default(""),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: intFrom("OAUTH_ACCESS_TOKEN_TTL_SECONDS", 3600, 60, 86_400),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: intFrom("OAUTH_REFRESH_TOKEN_TTL_DAYS", 30, 1, 365),
  OAUTH_RATE_LIMIT_PER_MINUTE: intFrom("OAUTH_RATE_LIMIT_PER_MINUTE", 20, 1, 1_000_000),
  OAUTH_TEST_ONLY_ALLOW_LOOPBACK_METADATA: boolFrom("OAUTH_TEST_ONLY_ALLOW_LOOPBACK_METADATA", false),
}).superRefine((e, ctx) => {
  // Checked together: OAuth needs the public origin clients reach, because every
  // URL in its metadata (and the audience of every token) is derived from it.
  if (e.OAUTH_MODE === "off") return;
  const problem = publicUrlProblem(e.PUBLIC_URL);
  if (problem) ctx.addIssue({ code: "custom", message: `OAUTH_MODE=${e.OAUTH_MODE} needs PUBLIC_URL: ${problem}` });
  if (e.OAUTH_MODE === "external") {
    const issuerProblem = e.OAUTH_ISSUER ? secureUrlProblem(e.OAUTH_ISSUER) : "it is empty";
    if (issuerProblem) ctx.addIssue({ code: "custom", message: `OAUTH_MODE=external needs OAUTH_ISSUER, the identity provider's issuer URL (e.g. https://id.example.com/realms/main): ${issuerProblem}` });
    if (e.OAUTH_JWKS_URL) {
      const jwksProblem = secureUrlProblem(e.OAUTH_JWKS_URL);
      if (jwksProblem) ctx.addIssue({ code: "custom", message: `OAUTH_JWKS_URL: ${jwksProblem}` });
    }
  }
});

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1"];

/** https anywhere; plain http only on this machine (local use and tests). */
function secureUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL`;
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && LOOPBACK_HOSTNAMES.includes(url.hostname)) return undefined;
  return `"${value}" must use https (plain http is accepted only for localhost and 127.0.0.1)`;
}

function publicUrlProblem(value: string | undefined): string | undefined {
  if (!value) return "it is empty; set it to the https origin clients reach, e.g. https://memory.example.com";
  const problem = secureUrlProblem(value);
  if (problem) return problem;
  const url = new URL(value);
  if (url.pathname.replace(/\/+$/, "") !== "" || url.search || url.hash) {
    return `"${value}" must be an origin without a path (the OAuth endpoints live at its root), e.g. https://memory.example.com`;
  }
  return undefined;
}

/**
 * Every variable loadConfig reads, with the value it takes when the variable is
 * unset, written as .env.example writes it ("" for none, lists comma-separated).
 * test/foundation/config-docs.test.ts keeps .env.example and
 * docs/configuration.md in step with it.
 */
export function envDefaults(): Record<string, string> {
  const parsed: Record<string, unknown> = EnvSchema.parse({});
  return Object.fromEntries(
    Object.keys(EnvSchema.shape).map((key) => {
      const value = parsed[key];
      return [key, value === undefined ? "" : Array.isArray(value) ? value.join(",") : String(value)];
    }),
  );
}

export interface Config {
  host: string;
  port: number;
  /** The URL agents use to reach /mcp, when it differs from http://host:port (proxies). */
  publicUrl: string | undefined;
  /** Postgres connection string; undefined means the embedded database. */
  databaseUrl: string | undefined;
  dataDir: string;
  db: {
    poolMax: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
    lockTimeoutMs: number;
  };
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  maxBodyBytes: number;
  allowedOrigins: string[];
  allowedHosts: string[];
  /** Express "trust proxy": false (off), a hop count or proxy addresses/subnets; never `true`. */
  trustProxy: false | number | string[];
  /** Tool calls per token per minute; 0 = unlimited. */
  rateLimitPerMinute: number;
  /** Failed authentications per client address per minute; 0 = unlimited. */
  authFailuresPerMinute: number;
  /** When set, GET /metrics needs `Authorization: Bearer <this>`. */
  metricsToken: string | undefined;
  limits: {
    factBodyMaxChars: number;
    graphTextMaxChars: number;
    /** About the most characters of JSON text one graph read answers with (see src/graph/bounds.ts). */
    graphAnswerMaxChars: number;
  };
  facts: {
    /** memory_store lists facts much like a newly created one (docs/hygiene.md). */
    duplicateWarning: boolean;
    /** A confirmed fact not reviewed for this many days is stale: marked in recall, back in the review queue. */
    staleAfterDays: number;
  };
  http: {
    /** Whole-request deadline (headers and body); also the headers deadline. */
    requestTimeoutMs: number;
    /** Concurrent connections per process; more are refused by the kernel-level accept. */
    maxConnections: number;
  };
  ledger: {
    /** The scope of actions with no explicit mapping (ledger_actions). */
    defaultScope: string;
    /** Open (unexpired) claims one agent may hold at a time. */
    maxOpenClaimsPerAgent: number;
  };
  /** Where a non-interactive first start writes the owner's token (mode 0600). */
  firstTokenFile: string;
  shutdownTimeoutMs: number;
  /** Create the `owner` agent and print its token when the database has no agents. */
  firstStartOwner: boolean;
  /** How long a web console sign-in lasts before the person signs in again. */
  consoleSessionMinutes: number;
  oauth: OAuthConfig;
}

export interface OAuthConfig {
  /** off: only static tokens; builtin: our own authorization server; external: tokens of an external identity provider. */
  mode: "off" | "builtin" | "external";
  /** External mode: the identity provider's issuer (the `iss` of its tokens). */
  issuer: string | undefined;
  /** External mode: the `aud` tokens must carry; defaults to the OAuth MCP URL. */
  audience: string | undefined;
  /** External mode: the claim whose value names the agent. */
  agentClaim: string;
  /** External mode: the JWKS URL when the issuer's metadata does not give one. */
  jwksUrl: string | undefined;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Requests per client address per minute on /register, /token, /authorize, /revoke and the consent form. */
  rateLimitPerMinute: number;
  /** TEST ONLY: lets client ID metadata documents be fetched from loopback addresses over http. */
  allowLoopbackMetadataDocuments: boolean;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join(".");
      return issue.code === "custom" || issue.message.includes(key) ? `- ${issue.message}` : `- ${key}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nSee .env.example for every setting and its default.`);
  }
  const e = parsed.data;
  return {
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, "") : undefined,
    databaseUrl: e.DATABASE_URL || undefined,
    dataDir: e.AGENT_MEMORY_DATA_DIR,
    db: {
      poolMax: e.DB_POOL_MAX,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: e.DB_LOCK_TIMEOUT_MS,
    },
    logLevel: e.LOG_LEVEL,
    maxBodyBytes: e.MAX_BODY_BYTES,
    allowedOrigins: e.ALLOWED_ORIGINS,
    allowedHosts: e.ALLOWED_HOSTS,
    trustProxy: e.TRUST_PROXY,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    metricsToken: e.METRICS_TOKEN || undefined,
    limits: {
      factBodyMaxChars: e.FACT_BODY_MAX_CHARS,
      graphTextMaxChars: e.GRAPH_TEXT_MAX_CHARS,
      graphAnswerMaxChars: e.GRAPH_ANSWER_MAX_CHARS,
    },
    facts: {
      duplicateWarning: e.FACT_DUPLICATE_WARNING,
      staleAfterDays: e.STALE_AFTER_DAYS,
    },
    http: { requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS, maxConnections: e.HTTP_MAX_CONNECTIONS },
    ledger: { defaultScope: e.LEDGER_DEFAULT_SCOPE, maxOpenClaimsPerAgent: e.LEDGER_MAX_OPEN_CLAIMS_PER_AGENT },
    firstTokenFile: e.FIRST_TOKEN_FILE || join(e.AGENT_MEMORY_DATA_DIR, FIRST_TOKEN_FILE_NAME),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    firstStartOwner: e.FIRST_START_OWNER,
    consoleSessionMinutes: e.CONSOLE_SESSION_MINUTES,
    oauth: {
      mode: e.OAUTH_MODE,
      issuer: e.OAUTH_ISSUER || undefined,
      audience: e.OAUTH_AUDIENCE || undefined,
      agentClaim: e.OAUTH_AGENT_CLAIM,
      jwksUrl: e.OAUTH_JWKS_URL || undefined,
      accessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400,
      rateLimitPerMinute: e.OAUTH_RATE_LIMIT_PER_MINUTE,
      allowLoopbackMetadataDocuments: e.OAUTH_TEST_ONLY_ALLOW_LOOPBACK_METADATA,
    },
  };
}
