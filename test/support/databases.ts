// Each test file gets its own database: a clone of the migrated template on the
// real Postgres server, or an in-memory PGlite loaded from the migrated PGlite
// template (global-setup.ts). Store tests run on both. Each is dropped when its
// test file ends (file-teardown.ts), or earlier by drop().
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { promisify } from "node:util";
import { inject } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createDatabase, dropDatabase } from "./admin-db.js";
import { closeWhenFileEnds } from "./file-teardown.js";
import { keepFailedDatabase } from "./keep-db.js";

export type Backend = "postgres" | "pglite";
export const BACKENDS: Backend[] = ["postgres", "pglite"];

export interface TestDatabase {
  db: Database;
  /** Connection string (postgres only). */
  url: string | undefined;
  name: string;
  /** Opens another independent pool on the same database (postgres only). */
  openPool(poolMax?: number): Database;
  drop(): Promise<void>;
}

export const TEST_TIMEOUTS = { statementTimeoutMs: 30_000, lockTimeoutMs: 10_000 };

/** A fresh empty database (no schema) on the Postgres server. */
export async function createEmptyPostgresDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `am_empty_${inject("runId")}_${randomBytes(4).toString("hex")}`;
  const url = await createDatabase(name);
  return { name, url, drop: closeWhenFileEnds(() => dropDatabase(name)) };
}

/**
 * `statementTimeoutMs`: for a file that loads bulk data in one statement (the
 * default 30 s was passed by 4,000 facts on PGlite in a loaded full run).
 */
export async function createTestDatabase(backend: Backend, options: { poolMax?: number; statementTimeoutMs?: number } = {}): Promise<TestDatabase> {
  const timeouts = { ...TEST_TIMEOUTS, ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}) };
  if (backend === "pglite") {
    const db = await openPglite({ ...timeouts, dataDir: undefined, template: inject("pgliteTemplate") });
    return {
      db,
      url: undefined,
      name: "pglite",
      openPool() {
        throw new Error("PGlite is a single connection");
      },
      drop: closeWhenFileEnds(() => db.close()),
    };
  }
  const name = `am_test_${inject("runId")}_${randomBytes(4).toString("hex")}`;
  const url = await createDatabase(name, { template: inject("templateDatabase") });
  const pools: Database[] = [];
  const openPool = (poolMax = options.poolMax ?? 10) => {
    const db = openPostgres({ ...timeouts, connectionString: url, poolMax, connectTimeoutMs: 5000 });
    pools.push(db);
    return db;
  };
  const db = openPool();
  return {
    db,
    url,
    name,
    openPool,
    drop: closeWhenFileEnds(async () => {
      await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
      if (keepFailedDatabase(name)) return;
      await dropDatabase(name);
    }),
  };
}

/**
 * Makes `dir` an embedded database folder holding the migrated template (what
 * global-setup.ts built): a command or a service opening it finds a database
 * there, instead of spending seconds on initdb. For tests whose point is not a
 * first start.
 */
export async function seedEmbeddedDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await promisify(execFile)("tar", ["-xf", inject("pgliteTemplate"), "-C", dir]);
}
