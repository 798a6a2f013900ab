// What the HTTP app and every capability receive. Built once at start-up (or per
// test) and passed down: no module-level singletons.
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import type { Metrics } from "./metrics.js";

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  metrics: Metrics;
  /** Number of migration files this build expects to find applied (for /readyz). */
  expectedMigrations: number;
  /** True once SIGTERM arrived: new requests are refused, /readyz reports 503. */
  isShuttingDown?: () => boolean;
}
