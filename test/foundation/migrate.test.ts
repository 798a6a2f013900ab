import { afterAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate, migrationsPending } from "../../src/db/migrate.js";
import { openPglite } from "../../src/db/pglite.js";
import { openPostgres } from "../../src/db/postgres.js";
import { createEmptyPostgresDatabase, TEST_TIMEOUTS } from "../support/databases.js";

const SCHEMA_SNAPSHOT = `
  select table_name, column_name, data_type
    from information_schema.columns
   where table_schema = 'public'
   order by table_name, column_name`;

describe("migrations", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("are numbered without gaps", async () => {
    const all = await loadMigrations();
    expect(all.map((m) => m.id)).toEqual(all.map((_, i) => i + 1));
  });

  it("applied twice on PGlite change nothing the second time", async () => {
    const db = await openPglite({ ...TEST_TIMEOUTS, dataDir: undefined });
    cleanups.push(() => db.close());
    const first = await migrate(db);
    expect(first.applied.length).toBe(first.current);
    const before = (await db.query(SCHEMA_SNAPSHOT)).rows;
    const second = await migrate(db);
    expect(second.applied).toEqual([]);
    expect((await db.query(SCHEMA_SNAPSHOT)).rows).toEqual(before);
    expect(await migrationsPending(db, first.current)).toBe(0);
  });

  it("two migrators racing on a fresh Postgres database leave one correct schema", async () => {
    const empty = await createEmptyPostgresDatabase();
    const a = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
    const b = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
    cleanups.push(async () => {
      await a.close();
      await b.close();
      await empty.drop();
    });
    expect(await migrationsPending(a, 1)).toBe(1);
    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
    // Exactly one of them did the work; the other found nothing left.
    expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, ra.current]);
    const recorded = await a.query<{ id: number }>("select id from schema_migrations order by id");
    expect(recorded.rows.map((r) => r.id)).toEqual(Array.from({ length: ra.current }, (_, i) => i + 1));
    expect(await migrationsPending(b, ra.current)).toBe(0);
    const again = await migrate(a);
    expect(again.applied).toEqual([]);
  });

  it("a failing migration leaves the schema untouched", async () => {
    const db = await openPglite({ ...TEST_TIMEOUTS, dataDir: undefined });
    cleanups.push(() => db.close());
    const good = await loadMigrations();
    const broken = [...good, { id: good.length + 1, name: "broken", sql: "create table half_done (x int); select * from no_such_table;" }];
    await expect(migrate(db, broken)).rejects.toThrow(/no_such_table/);
    expect(await migrationsPending(db, good.length)).toBe(good.length);
    const half = await db.query<{ t: string | null }>("select to_regclass('half_done')::text as t");
    expect(half.rows[0]?.t).toBeNull();
  });
});
