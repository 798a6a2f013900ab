// The second step of a start: everything the HTTP app and the capabilities
// receive (AppDeps), with every metric source wired here, where the parts they
// read are made. Also what serves beside them: the embedded database's CLI
// socket and the read replicas' router.
import type { Logger } from "pino";
import type { AppDeps } from "../app-deps.js";
import type { Config } from "../config/index.js";
import type { Database } from "../db/core/database.js";
import { openReadRouter } from "../db/core/open.js";
import { serveCliSocket } from "../db/embedded/cli-socket-server.js";
import type { ReadRouter } from "../db/postgres/read-router.js";
import { loadMigrations } from "../db/schema/migrate.js";
import { FactEmbeddings, memoryHealth, ReceiptWriter } from "../facts/index.js";
import { createMetrics } from "../metrics.js";
import { createSecretGuard } from "../secrets/guard.js";
import { loadMcpTracing } from "../tracing/mcp-tracing.js";
import type { Teardown } from "./teardown.js";

interface DepsOptions {
  /** Already known (the service counted them before migrating); read from sql/ otherwise. */
  expectedMigrations?: number;
  isShuttingDown?: () => boolean;
  reads?: ReadRouter;
}

/** The one way AppDeps are assembled: the service (below), test/support/service.ts and bench/ use it. */
export async function createDeps(config: Config, db: Database, logger: Logger, options: DepsOptions = {}): Promise<AppDeps> {
  const metrics = createMetrics(() => db.poolStats(), { scopeLabels: config.metricsToken !== undefined });
  const reads = options.reads;
  if (reads) metrics.replicas.source = () => reads.status();
  const health = db.health?.bind(db);
  if (health) metrics.database.source = health;
  // While the database is down the health gauges are left out; the rest of /metrics is served.
  metrics.health.source = () =>
    memoryHealth(db, config.facts.staleAfterDays).catch((error: unknown) => {
      logger.warn({ err: error }, "reading memory health for /metrics failed; its gauges are left out of this scrape");
      return undefined;
    });
  const receipts = new ReceiptWriter(
    db,
    config.facts.receiptsRetentionDays > 0,
    { recorded: (n) => metrics.receiptsRecorded.inc(n), dropped: (n) => metrics.receiptsDropped.inc(n) },
    logger,
    config.facts.receiptWindowMs,
  );
  const embeddings = config.embeddings ? new FactEmbeddings(config.embeddings, db, logger, metrics) : undefined;
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
    ...(embeddings ? { embeddings } : {}),
    ...(config.tracing.enabled ? { tracing: await loadMcpTracing() } : {}),
  };
}

interface ServiceDepsOptions {
  expectedMigrations: number;
  isShuttingDown: () => boolean;
  /** The service opened the embedded database itself: CLI commands run their statements through it. */
  servesCliSocket: boolean;
}

/** The service's dependencies, each part pushed onto the teardown as it opens. */
export async function buildServiceDeps(config: Config, db: Database, logger: Logger, teardown: Teardown, options: ServiceDepsOptions): Promise<AppDeps> {
  if (options.servesCliSocket) {
    const cliSocket = await serveCliSocket(db, config.dataDir, config.db.statementTimeoutMs, logger);
    if (cliSocket) teardown.push("the CLI socket", () => cliSocket.close());
  }
  const reads = await openReadRouter(config, db, (replica, state, error) =>
    state === "down" ? logger.warn({ replica, err: error }, "read replica down: its reads go to the primary until it is back") : logger.info({ replica }, "read replica back"),
  );
  if (reads) teardown.push("the read replicas", () => reads.close());
  const deps = await createDeps(config, db, logger, { expectedMigrations: options.expectedMigrations, isShuttingDown: options.isShuttingDown, ...(reads ? { reads } : {}) });
  // The receipts of the last answers are written before the database closes.
  teardown.push("recall receipts", () => deps.receipts.close());
  return deps;
}
