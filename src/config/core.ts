// Where the service listens and keeps its data: address, database, logging,
// first start and shutdown.
import { join } from "node:path";
import * as z from "zod/v4";
import { HostListError, parseHostList } from "./host-list.js";
import { boolFrom, intFrom } from "./parse.js";

const DEFAULT_PORT = 8080;
const FIRST_TOKEN_FILE_NAME = "owner-token";

/** A Postgres URL, one host or libpq's host list (postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write). */
function postgresUrl(setting: string) {
  return z
    .string()
    .trim()
    .optional()
    .superRefine((v, ctx) => {
      if (v === undefined || v === "") return;
      try {
        parseHostList(v, setting);
      } catch (error) {
        if (!(error instanceof HostListError)) throw error;
        ctx.addIssue({ code: "custom", message: error.message });
      }
    });
}

export const coreEnv = z.object({
  HOST: z.string().trim().min(1).optional().default("127.0.0.1"),
  PORT: intFrom("PORT", DEFAULT_PORT, 0, 65535),
  PUBLIC_URL: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || v === "" || /^https?:\/\/[^\s]+$/.test(v), {
      message: "PUBLIC_URL must be an http(s) URL such as https://memory.example.com",
    }),
  DATABASE_URL: postgresUrl("DATABASE_URL"),
  DATABASE_READ_URL: postgresUrl("DATABASE_READ_URL"),
  DATABASE_READ_MAX_LAG_MS: intFrom("DATABASE_READ_MAX_LAG_MS", 5000, 100, 600_000),
  AGENT_MEMORY_DATA_DIR: z.string().trim().min(1).optional().default("./.agent-memory"),
  DB_POOL_MAX: intFrom("DB_POOL_MAX", 10, 1, 1000),
  DB_CONNECT_TIMEOUT_MS: intFrom("DB_CONNECT_TIMEOUT_MS", 5000, 100, 600_000),
  DB_STATEMENT_TIMEOUT_MS: intFrom("DB_STATEMENT_TIMEOUT_MS", 10_000, 100, 3_600_000),
  DB_LOCK_TIMEOUT_MS: intFrom("DB_LOCK_TIMEOUT_MS", 3000, 10, 600_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional().default("info"),
  LOG_FORMAT: z.enum(["auto", "json", "pretty"]).optional().default("auto"),
  FIRST_TOKEN_FILE: z.string().trim().optional().default(""),
  SHUTDOWN_TIMEOUT_MS: intFrom("SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
  FIRST_START_OWNER: boolFrom("FIRST_START_OWNER", true),
});

export interface CoreConfig {
  host: string;
  port: number;
  /** The URL agents use to reach /mcp, when it differs from http://host:port (proxies). */
  publicUrl: string | undefined;
  /** Postgres connection string; undefined means the embedded database. */
  databaseUrl: string | undefined;
  /** Streaming replicas for reads that may be a moment old (one URL, or libpq's host list for several). */
  databaseReadUrl: string | undefined;
  dataDir: string;
  db: {
    poolMax: number;
    connectTimeoutMs: number;
    statementTimeoutMs: number;
    lockTimeoutMs: number;
    /** A replica further behind than this serves no reads. */
    readMaxLagMs: number;
  };
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** auto: short readable lines when stdout is a terminal, JSON otherwise. */
  logFormat: "auto" | "json" | "pretty";
  /** Where a non-interactive first start writes the owner's token (mode 0600). */
  firstTokenFile: string;
  shutdownTimeoutMs: number;
  /** Create the `owner` agent and print its token when the database has no agents. */
  firstStartOwner: boolean;
}

export function coreConfig(e: z.output<typeof coreEnv>): CoreConfig {
  return {
    host: e.HOST,
    port: e.PORT,
    publicUrl: e.PUBLIC_URL ? e.PUBLIC_URL.replace(/\/+$/, "") : undefined,
    databaseUrl: e.DATABASE_URL || undefined,
    databaseReadUrl: e.DATABASE_READ_URL || undefined,
    dataDir: e.AGENT_MEMORY_DATA_DIR,
    db: {
      poolMax: e.DB_POOL_MAX,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: e.DB_LOCK_TIMEOUT_MS,
      readMaxLagMs: e.DATABASE_READ_MAX_LAG_MS,
    },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    firstTokenFile: e.FIRST_TOKEN_FILE || join(e.AGENT_MEMORY_DATA_DIR, FIRST_TOKEN_FILE_NAME),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    firstStartOwner: e.FIRST_START_OWNER,
  };
}

/** Replicas are replicas of a Postgres primary: the embedded database has none. */
export function checkReadReplicas(e: { DATABASE_URL?: string | undefined; DATABASE_READ_URL?: string | undefined }, ctx: z.RefinementCtx): void {
  if (e.DATABASE_READ_URL && !e.DATABASE_URL) {
    ctx.addIssue({ code: "custom", path: ["DATABASE_READ_URL"], message: "DATABASE_READ_URL needs DATABASE_URL: it names streaming replicas of that Postgres primary (the embedded database has none). Set DATABASE_URL, or unset DATABASE_READ_URL." });
  }
}
