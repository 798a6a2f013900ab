// What the HTTP app and every capability receive. Built once at start-up (or per
// test, or per benchmark) by createDeps (src/start/deps.ts) and passed down: no
// module-level singletons.
import type { Logger } from "pino";
import type { Config } from "./config/index.js";
import type { Database } from "./db/core/database.js";
import type { ReadRouter } from "./db/postgres/read-router.js";
import type { Metrics } from "./metrics.js";
import type { SecretGuard } from "./secrets/guard.js";
import type { McpTracing } from "./tracing/mcp-tracing.js";

export interface AppDeps {
  config: Config;
  db: Database;
  /**
   * The primary, also inside a call whose reads run on a replica (there `db` is
   * the replica): for the little such a call writes or must read fresh
   * (withdrawal notices marked seen).
   */
  primary: Database;
  logger: Logger;
  metrics: Metrics;
  /** Scans what agents write for credentials (SECRET_GUARD); counts refusals in metrics. */
  secrets: SecretGuard;
  /** Records which agent was served which fact version, in batches on the primary (src/facts/trust/receipt-writer.ts). */
  receipts: Receipts;
  /** Number of migration files this build expects to find applied (for /readyz). */
  expectedMigrations: number;
  /** True once SIGTERM arrived: new requests are refused, /readyz reports 503. */
  isShuttingDown?: () => boolean;
  /** With DATABASE_READ_URL: where reads that may be a moment old run (src/db/postgres/read-router.ts). */
  reads?: ReadRouter;
  /** With EMBEDDINGS_URL: recall by meaning, and the queue that embeds facts (src/facts/embeddings/). Absent, recall finds words only. */
  embeddings?: Embeddings;
  /** With OTEL_* asking for traces: the MCP server span of each request (src/tracing/). Absent, nothing is traced. */
  tracing?: McpTracing;
}

/** One fact as it was served: its current version and status at that moment. */
export interface ServedFact {
  scope: string;
  name: string;
  version: number;
  status: string;
}

/** Recall receipts: which agent was served which fact version (src/facts/trust/receipt-writer.ts). */
export interface Receipts {
  /** Queued in memory, written with the next batch: a read never waits for it. */
  record(agentId: number, via: string, facts: readonly ServedFact[]): void;
  /** Every receipt queued so far written (a withdrawal must reach each reader). */
  flush(): Promise<void>;
  /** The last batch written; no more are taken. */
  close(): Promise<void>;
}

/** The keywords' vector, or why recall goes without one (it answers by words and says so). */
export type QueryVector = { vector: number[] } | { unavailable: string };

/** Recall by meaning (src/facts/embeddings/embeddings.ts). */
export interface Embeddings {
  readonly model: string;
  /** Cosine similarity a fact needs to be found by meaning alone (EMBEDDINGS_MIN_SIMILARITY). */
  readonly minSimilarity: number;
  /** The longest the semantic leg of a recall may take (EMBEDDINGS_RECALL_BUDGET_MS): the keywords' embedding and the neighbour search together. */
  readonly recallBudgetMs: number;
  /** The keywords' vector within EMBEDDINGS_RECALL_BUDGET_MS; never throws. */
  embedQuery(text: string): Promise<QueryVector>;
  /** The readable facts nearest a vector, best first, with their similarity, read on `db` (a replica where reads may lag), within `timeoutMs` on Postgres. */
  nearest(db: Database, vector: readonly number[], filters: { readable: { all: boolean; scopes: string[] }; type: string | null; status: string | null; scope: string | null }, limit: number, timeoutMs: number): Promise<Array<{ id: string; similarity: number }>>;
  /** Why the answer goes without meaning when `nearest` threw (counted and logged). */
  searchFailed(error: unknown, timeoutMs: number): string;
  /** A fact's text was written: the queue embeds it without waiting for its next look. */
  written(): void;
  /** The embedding queue, run by the service's background jobs (src/start/jobs.ts) until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
}
