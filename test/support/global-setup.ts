// Once per test run: check that the test Postgres is reachable (CI fails rather
// than skips when it is not), build a migrated template database that every test
// file clones, and drop everything this run created at the end. The template is
// a database made before the schema's baseline (its 44 migrations of then) and
// upgraded by the migrator, so every Postgres test runs on an upgraded schema and
// every PGlite test on a fresh one: the whole suite holds for both.
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrate } from "../../src/db/migrate.js";
import { openPostgres } from "../../src/db/postgres.js";
import { adminUrl, databaseUrl } from "./pg-urls.js";
import { migrateAsBefore, preBaselineMigrations } from "./schema.js";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
    runId: string;
  }
}

export default async function setup(project: TestProject) {
  const runId = `${process.pid.toString(36)}${randomBytes(3).toString("hex")}`;
  const template = `am_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `Tests need Postgres at ${adminUrl()} (set TEST_DATABASE_URL to change it) and could not connect: ${(error as Error).message}. ` +
        `Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
  }
  await admin.query(`create database ${template}`);
  const db = openPostgres({ connectionString: databaseUrl(template), poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 60_000, lockTimeoutMs: 60_000 });
  try {
    await migrateAsBefore(db, preBaselineMigrations());
    await migrate(db);
  } finally {
    await db.close();
  }
  project.provide("templateDatabase", template);
  project.provide("runId", runId);

  return async () => {
    const leftovers = await admin.query<{ datname: string }>("select datname from pg_database where datname like $1", [`am_%${runId}%`]);
    // KEEP_TEST_DB=1 keeps the databases failed test files left (see keep-db.ts); the template goes.
    const keep = process.env.KEEP_TEST_DB === "1";
    for (const { datname } of leftovers.rows) {
      if (keep && datname !== template) continue;
      await admin.query(`drop database if exists ${datname} with (force)`);
    }
    await admin.end();
  };
}
