// What the HTTP app and every capability receive. Built once at start-up (or per
// test, or per benchmark) by createDeps and passed down: no module-level singletons.
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import type { ReadRouter } from "./db/cluster/read-router.js";
import { loadMigrations } from "./db/migrate.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { ReceiptWriter } from "./receipts.js";
import { createSecretGuard, type SecretGuard } from "./secrets/guard.js";
import { loadMcpTracing, type McpTracing } from "./tracing/mcp-tracing.js";

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
  /** Records which agent was served which fact version, in batches on the primary (src/receipts.ts). */
  receipts: ReceiptWriter;
  /** Number of migration files this build expects to find applied (for /readyz). */
  expectedMigrations: number;
  /** True once SIGTERM arrived: new requests are refused, /readyz reports 503. */
  isShuttingDown?: () => boolean;
  /** With DATABASE_READ_URL: where reads that may be a moment old run (src/db/cluster/read-router.ts). */
  reads?: ReadRouter;
  /** With OTEL_* asking for traces: the MCP server span of each request (src/tracing/). Absent, nothing is traced. */
  tracing?: McpTracing;
}

interface DepsOptions {
  /** Already known (the service counted them before migrating); read from sql/ otherwise. */
  expectedMigrations?: number;
  isShuttingDown?: () => boolean;
  reads?: ReadRouter;
}

/** The one way AppDeps are assembled: src/serve.ts, test/support/service.ts and bench/ use it. */
export async function createDeps(config: Config, db: Database, logger: Logger, options: DepsOptions = {}): Promise<AppDeps> {
  const metrics = createMetrics(() => db.poolStats(), { scopeLabels: config.metricsToken !== undefined });
  const reads = options.reads;
  if (reads) metrics.replicas.source = () => reads.status();
  const health = db.health?.bind(db);
  if (health) metrics.database.source = health;
  const receipts = new ReceiptWriter(
    db,
    config.facts.receiptsRetentionDays > 0,
    { recorded: (n) => metrics.receiptsRecorded.inc(n), dropped: (n) => metrics.receiptsDropped.inc(n) },
    logger,
    config.facts.receiptWindowMs,
  );
  return {
    config,
    db,
    primary: db,
    logger,
    metrics,
    receipts,
    secrets: createSecretGuard(config.secretGuard, (kind) => metrics.secretsRefused.inc({ kind })),
    expectedMigrations: options.expectedMigrations ?? (await loadMigrations()).length,
    ...(options.isShuttingDown ? { isShuttingDown: options.isShuttingDown } : {}),
    ...(reads ? { reads } : {}),
    ...(config.tracing.enabled ? { tracing: await loadMcpTracing() } : {}),
  };
}
