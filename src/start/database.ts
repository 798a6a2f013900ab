// The first step of a start: the database open, its schema current, and what it
// holds read once (for the first-start decision and the half-restore refusal).
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Database } from "../db/core/database.js";
import { describeDatabase, openDatabase, withConnectionAdvice } from "../db/core/open.js";
import { dataWithoutAgents, type Holdings, readHoldings } from "../db/schema/holdings.js";
import { loadMigrations, migrate } from "../db/schema/migrate.js";
import type { Teardown } from "./teardown.js";

export interface PreparedDatabase {
  db: Database;
  holdings: Holdings;
  /** Migration files this build ships (what /readyz expects applied). */
  migrations: number;
}

/** Opens the database (unless the caller hands one over and keeps closing it), migrates it and checks what it holds. */
export async function prepareDatabase(config: Config, logger: Logger, teardown: Teardown, given?: Database): Promise<PreparedDatabase> {
  const db = given ?? (await openDatabase(config, {
      onIdleError: (error) => logger.warn({ err: error }, "idle database connection lost"),
      onStalePrimary: (survey) =>
        logger.error({ stale: survey.stale, hosts: survey.hosts }, "DATABASE_URL lists an old primary that accepts writes beside the current one (after a failover): it is not used; fence it (docs/replicas.md)"),
      onWorkerRestart: (reason) => logger.warn({ reason }, "embedded database worker restarted by the statement watchdog"),
    }));
  if (!given) teardown.push("the database", () => db.close());
  const migrations = (await loadMigrations()).length;
  const report = await migrate(db).catch((error: unknown) => {
    throw withConnectionAdvice(error, config);
  });
  const holdings = await readHoldings(db);
  const halfRestored = dataWithoutAgents(holdings);
  if (halfRestored) throw new Error(halfRestored);
  // PGlite has no autovacuum: without fresh statistics (and flushed GIN pending
  // lists) the planner keeps reading whole tables instead of the trigram
  // indexes. Once per start is cheap at embedded sizes.
  if (db.kind === "pglite") await db.exec("vacuum analyze");
  // Counts, not names: a first start applies every migration, and the list filled a screen.
  const applied = report.applied.length;
  logger.info(
    { database: describeDatabase(config), migrationsApplied: applied, functionsApplied: report.functions.applied.length, schemaVersion: report.current },
    applied > 0 ? `database ready: applied ${applied} migration${applied === 1 ? "" : "s"}` : "database ready",
  );
  return { db, holdings, migrations };
}
