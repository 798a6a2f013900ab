// One rule for a build of another release than the database's schema: only
// serve and migrate apply migrations and function files, and only when the
// database is not newer; an older build is told "this database is newer than
// this build" instead of failing half-way; every other CLI command runs only on
// exactly its own schema (migrations and function bodies) and otherwise refuses,
// saying which side is ahead, without changing anything (also through the
// embedded service's socket, where it would rewrite the running service's
// functions).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { loadMigrations, migrate } from "../../src/db/schema/migrate.js";
import { loadFunctions, type SqlFunction } from "../../src/db/schema/sql-functions.js";
import { connectSocketDatabase } from "../../src/db/embedded/cli-socket-client.js";
import { createEmptyPostgresDatabase, createTestDatabase, seedEmbeddedDataDir, type TestDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/cli.js";

/** What a later release might add: a function file, and a migration whose trigger uses it. */
const LATER_FUNCTION: SqlFunction = {
  name: "am_test_later",
  sql: "create or replace function am_test_later() returns trigger language plpgsql set search_path from current as $$ begin return new; end $$;",
  checksum: "later",
};
const laterMigration = (id: number) => ({ id, name: "test_later", sql: "create trigger agents_later before insert on agents for each row execute function am_test_later();" });

/** Plays "another release set up this database": one function body and its recorded checksum differ from this build's. */
async function functionOfAnotherRelease(db: Pick<Database, "exec">): Promise<void> {
  await db.exec(`
    create or replace function am_graph_max_observations() returns integer language sql immutable parallel safe as $$ select 1200 $$;
    update schema_functions set checksum = 'another-release' where name = 'am_graph_max_observations';`);
}

const maxObservations = async (db: Pick<Database, "query">) => (await db.query<{ n: number }>("select am_graph_max_observations() as n")).rows[0]!.n;

describe("a build older than the database", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const migrations = await loadMigrations();
    await migrate(tdb.db, { migrations: [...migrations, laterMigration(migrations.length + 1)], functions: [...(await loadFunctions()), LATER_FUNCTION] });
  });

  it("migrate refuses, naming the migration it does not know, and changes nothing", async () => {
    const known = (await loadMigrations()).length;
    await expect(migrate(tdb.db)).rejects.toThrow(
      new RegExp(`This database is newer than this build: its schema has migration ${known + 1} \\(test_later\\), which this build \\(schema version ${known}\\) does not know`),
    );
    expect((await tdb.db.query("select name from schema_functions where name = 'am_test_later'")).rows).toHaveLength(1);
    expect((await tdb.db.query("select 1 from pg_proc where proname = 'am_test_later'")).rows).toHaveLength(1);
  });

  it("serve exits with the same plain message", async () => {
    const serve = startServe({ DATABASE_URL: tdb.url });
    expect(await serve.exited).toBe(1);
    expect(serve.stderr()).toMatch(/This database is newer than this build: its schema has migration \d+ \(test_later\)/);
  });

  it("a CLI command refuses it too", async () => {
    const listed = await runCli(["agent", "list"], { DATABASE_URL: tdb.url });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/This database is newer than this CLI: its schema has migration \d+ \(test_later\).*Use the CLI of the release the service runs/);
  });
});

describe("CLI commands of another release (Postgres)", () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
  });
  const cli = (...args: string[]) => runCli(args, { DATABASE_URL: tdb.url });

  it("run on exactly their own schema", async () => {
    expect((await cli("agent", "list")).code).toBe(0);
  });

  it("refuse a database whose functions differ, and leave them as they are", async () => {
    await functionOfAnotherRelease(tdb.db);
    const listed = await cli("agent", "list", "--json");
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout)).toEqual({
      error: { code: "error", message: expect.stringMatching(/^This CLI is from another release than the running service .*their SQL functions differ \(am_graph_max_observations\)\. Use the CLI of the release the service runs/) },
    });
    expect(await maxObservations(tdb.db)).toBe(1200);
    // migrate is how a release puts its own schema in place.
    expect((await cli("migrate")).code).toBe(0);
    expect(await maxObservations(tdb.db)).toBe(1000);
    expect((await cli("agent", "list")).code).toBe(0);
  });

  it("refuse an older schema, saying to migrate it first", async () => {
    const last = (await loadMigrations()).length;
    await tdb.db.query("delete from schema_migrations where id = $1", [last]);
    try {
      const listed = await cli("agent", "list");
      expect(listed.code).toBe(1);
      expect(listed.stderr).toContain(`This database's schema is older than this CLI (schema version ${last - 1}; this CLI's is ${last}). Upgrade it first with agent-memory migrate`);
    } finally {
      await tdb.db.query("insert into schema_migrations (id, name) values ($1, $2)", [last, (await loadMigrations())[last - 1]!.name]);
    }
  });

  it("set up a database that has no schema yet (agent add before the first start)", async () => {
    const empty = await createEmptyPostgresDatabase();
    try {
      const added = await runCli(["agent", "add", "writer", "--no-token"], { DATABASE_URL: empty.url });
      expect(added.code, added.stderr).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});

describe("a CLI of another release beside a running embedded service", () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "am-release-")), "data");
  const env = { AGENT_MEMORY_DATA_DIR: dataDir };

  it("refuses through the socket instead of rewriting the service's functions", async () => {
    await seedEmbeddedDataDir(dataDir);
    const serve = startServe(env);
    await serve.ready;
    const lent = (await connectSocketDatabase(join(dataDir, "cli.sock")))!;
    try {
      await functionOfAnotherRelease(lent);
    } finally {
      await lent.close();
    }
    const listed = await runCli(["agent", "list"], env);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain("This CLI is from another release than the running service");
    const again = (await connectSocketDatabase(join(dataDir, "cli.sock")))!;
    try {
      expect(await maxObservations(again)).toBe(1200);
    } finally {
      await again.close();
    }
  }, 60_000);
});
