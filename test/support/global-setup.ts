// Once per test run: check that the test Postgres is reachable (CI fails rather
// than skips when it is not), build the migrated templates every test file
// starts from, and drop everything this run created at the end.
// Both templates are built the same way, by migrating an empty database, so
// both databases run the suite on one schema history; the upgrade from a
// database made before the schema's baseline is tested where migrations are
// (test/db/migrate.test.ts).
// - Postgres: a template database, cloned per file.
// - PGlite: a tarball of a freshly migrated data folder, loaded per file into
//   memory (migrating costs seconds; loading takes about one).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { buildPgliteImage, PGLITE_EXTENSIONS } from "../../src/db/embedded/pglite-image.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { adminUrl, databaseUrl } from "./pg-urls.js";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
    /** The PGlite template's tarball (openPglite's `template`): a migrated database. */
    pgliteTemplate: string;
    /** A tarball of an initialised PGlite database without the schema, for the migration tests (the build's image). */
    pgliteEmptyTemplate: string;
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
  const pgliteFolder = await mkdtemp(join(tmpdir(), "am-pglite-template-"));
  const pgliteTemplate = `${pgliteFolder}.tar`;
  // The build made it (npm test builds first); made here when vitest runs alone.
  const pgliteEmptyTemplate = await buildPgliteImage();
  // The two servers' templates are independent: built side by side.
  await Promise.all([
    (async () => {
      const db = openPostgres({ connectionString: databaseUrl(template), poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 60_000, lockTimeoutMs: 60_000 });
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
    })(),
    buildPgliteTemplate(pgliteFolder, pgliteTemplate),
  ]);
  project.provide("templateDatabase", template);
  project.provide("pgliteTemplate", pgliteTemplate);
  project.provide("pgliteEmptyTemplate", pgliteEmptyTemplate);
  project.provide("runId", runId);

  return async () => {
    await rm(pgliteTemplate, { force: true });
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

/**
 * Migrates a new PGlite data folder the service's way (openPglite, which starts
 * it from the build's initialised image) and dumps it; the folder is removed.
 */
async function buildPgliteTemplate(folder: string, tarball: string): Promise<void> {
  try {
    const db = await openPglite({ dataDir: folder, statementTimeoutMs: 120_000, lockTimeoutMs: 60_000 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    const migrated = await PGlite.create(folder, { extensions: PGLITE_EXTENSIONS });
    try {
      await writeFile(tarball, Buffer.from(await (await migrated.dumpDataDir("none")).arrayBuffer()));
    } finally {
      await migrated.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
