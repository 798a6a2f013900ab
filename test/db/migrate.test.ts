// The migrator: sql/functions/ (each function's current body, applied when its
// checksum changes) and sql/migrations/ (forward-only, from one baseline), in
// one locked transaction; and a database made before the baseline, upgraded.
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { loadMigrations, migrate, migrationsPending } from "../../src/db/schema/migrate.js";
import { loadFunctions, type SqlFunction } from "../../src/db/schema/sql-functions.js";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { BACKENDS, createEmptyPostgresDatabase, createTestDatabase, type Backend, TEST_TIMEOUTS } from "../support/databases.js";
import { migrateAsBefore, preBaselineMigrations, schemaOf } from "../support/schema.js";

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** An empty database of `backend`, closed and dropped after the file. */
async function emptyDatabase(backend: Backend): Promise<Database> {
  if (backend === "pglite") {
    // An initialised database without the schema, from its template (initdb costs seconds).
    const db = await openPglite({ ...TEST_TIMEOUTS, statementTimeoutMs: 120_000, dataDir: undefined, template: inject("pgliteEmptyTemplate") });
    cleanups.push(() => db.close());
    return db;
  }
  const empty = await createEmptyPostgresDatabase();
  const db = openPostgres({ ...TEST_TIMEOUTS, statementTimeoutMs: 120_000, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
  cleanups.push(async () => {
    await db.close();
    await empty.drop();
  });
  return db;
}

/**
 * A database of `backend` as migrate() leaves an empty one, from the suite's
 * template (which global-setup migrated with the same migrate()), dropped after the file.
 */
async function migratedDatabase(backend: Backend): Promise<Database> {
  const tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
  cleanups.push(() => tdb.drop());
  return tdb.db;
}

const FUNCTION_COUNT = `select count(*)::int as n from pg_proc where proname like 'am\\_%' and pronamespace = 'public'::regnamespace`;

describe("the files", () => {
  it("migrations are numbered without gaps, from the baseline; every function has a file of its name", async () => {
    const all = await loadMigrations();
    expect(all.map((m) => m.id)).toEqual(all.map((_, i) => i + 1));
    expect(all[0]!.name).toBe("baseline");
    for (const f of await loadFunctions()) expect(f.sql).toMatch(new RegExp(`^create or replace (function|aggregate) ${f.name}\\(`, "m"));
  });

  it("no migration defines a function: a function's body lives in sql/functions/ only", async () => {
    for (const m of await loadMigrations()) expect(m.sql, m.name).not.toMatch(/create\s+(or\s+replace\s+)?(function|aggregate)/i);
  });
});

describe.each(BACKENDS)("migrating on %s", (backend) => {
  it("applied twice changes nothing the second time", async () => {
    const db = await emptyDatabase(backend);
    const first = await migrate(db);
    expect(first.applied.length).toBe(first.current);
    expect(first.functions.applied).toEqual((await loadFunctions()).map((f) => f.name));
    const before = await schemaOf(db);
    const second = await migrate(db);
    expect(second).toEqual({ applied: [], functions: { applied: [], dropped: [] }, current: first.current });
    expect(await schemaOf(db)).toEqual(before);
    expect(await migrationsPending(db, first.current)).toBe(0);
  });

  it("re-applies a changed function file only, drops the function of a file that is gone, replaces a changed signature, and refuses two signatures in one file", async () => {
    const db = await migratedDatabase(backend);
    const files = await loadFunctions();
    const changed = (f: SqlFunction, sql: string): SqlFunction => ({ ...f, sql, checksum: `${f.checksum}-changed` });
    const limit = files.find((f) => f.name === "am_graph_max_observations")!;
    const raised = changed(limit, limit.sql.replace("select 1000", "select 1200"));
    const report = await migrate(db, { functions: files.map((f) => (f === limit ? raised : f)) });
    expect(report.functions).toEqual({ applied: ["am_graph_max_observations"], dropped: [] });
    expect((await db.query<{ n: number }>("select am_graph_max_observations() as n")).rows[0]!.n).toBe(1200);

    const extra: SqlFunction = { name: "am_test_extra", sql: "create or replace function am_test_extra() returns int language sql as 'select 1';", checksum: "x" };
    await migrate(db, { functions: [...files, extra] });
    const gone = await migrate(db, { functions: files });
    expect(gone.functions.dropped).toEqual(["am_test_extra"]);
    expect((await db.query<{ n: number }>("select count(*)::int as n from pg_proc where proname = 'am_test_extra'")).rows[0]!.n).toBe(0);

    // A file that changes its function's signature replaces the old one.
    await migrate(db, { functions: [...files, extra] });
    const resigned: SqlFunction = { ...extra, sql: "create or replace function am_test_extra(x int) returns int language sql as 'select x';", checksum: "w" };
    expect((await migrate(db, { functions: [...files, resigned] })).functions.applied).toEqual(["am_test_extra"]);
    expect((await db.query<{ sig: string }>("select oid::regprocedure::text as sig from pg_proc where proname = 'am_test_extra'")).rows).toEqual([{ sig: "am_test_extra(integer)" }]);
    await migrate(db, { functions: files });

    const twice: SqlFunction = { ...extra, sql: `${extra.sql} create or replace function am_test_extra(x int) returns int language sql as 'select x';`, checksum: "y" };
    await expect(migrate(db, { functions: [...files, twice] })).rejects.toThrow(/More than one function named am_test_extra: a function file defines one function/);
    // Refused whole: the failed run created nothing.
    expect((await db.query<{ n: number }>("select count(*)::int as n from pg_proc where proname = 'am_test_extra'")).rows[0]!.n).toBe(0);
  });

  it("refuses to change in place a function whose results an index or a stored column holds, also through a function that calls it", async () => {
    const db = await migratedDatabase(backend);
    const files = await loadFunctions();
    const changed = (name: string, from: string, to: string): SqlFunction[] =>
      files.map((f) => (f.name === name ? { ...f, sql: f.sql.replace(from, to), checksum: `${f.checksum}-changed` } : f));
    await expect(migrate(db, { functions: changed("am_fact_search_body", "left(p_body, 1000)", "left(p_body, 900)") })).rejects.toThrow(
      /sql\/functions\/am_fact_search_body\.sql changed, but facts_cjk_grams, facts_exact_trgm, facts_near_words store what am_fact_search_body computes/,
    );
    await expect(migrate(db, { functions: changed("am_duplicate_text", "lower(p_head)", "upper(p_head)") })).rejects.toThrow(/facts\.duplicate_text stores what am_duplicate_text computes/);
    // Refused whole: the functions are as they were.
    expect((await db.query<{ n: number }>("select char_length(am_fact_search_body(repeat('x', 5000)))::int as n")).rows[0]!.n).toBe(1000);
    expect((await migrate(db)).functions).toEqual({ applied: [], dropped: [] });
  });

  it("a failing migration or function file leaves the schema untouched, saying which file failed", async () => {
    const db = await emptyDatabase(backend);
    const good = await loadMigrations();
    const broken = [...good, { id: good.length + 1, name: "broken", sql: "create table half_done (x int); select * from no_such_table;" }];
    await expect(migrate(db, { migrations: broken })).rejects.toThrow(/no_such_table/);
    expect(await migrationsPending(db, good.length)).toBe(good.length);
    expect((await db.query<{ t: string | null }>("select to_regclass('half_done')::text as t")).rows[0]?.t).toBeNull();
    expect((await db.query<{ n: number }>(FUNCTION_COUNT)).rows[0]!.n).toBe(0);
    const files = await loadFunctions();
    const bad: SqlFunction = { name: "am_test_bad", sql: "create or replace function am_test_bad() returns int language plpgsql as $$ begin retrun 1; end $$;", checksum: "z" };
    await expect(migrate(db, { functions: [...files, bad] })).rejects.toThrow(/sql\/functions\/am_test_bad\.sql failed/);
    expect((await db.query<{ n: number }>(FUNCTION_COUNT)).rows[0]!.n).toBe(0);
  });

  it("upgrades a database made before the baseline, with data, to the very schema a fresh one gets", async () => {
    const fresh = await migratedDatabase(backend);
    const old = await emptyDatabase(backend);
    await migrateAsBefore(old, preBaselineMigrations());
    await old.query("insert into agents (name, kind, write_scopes) values ('writer', 'agent', '{shared}')");
    await old.exec(
      `insert into graph_entities (scope, name, entity_type, created_by) select 'shared', 'e' || g, 't', (select id from agents) from generate_series(1, 3) g;
       insert into graph_observations (entity_id, scope, content, created_by) select id, 'shared', 'seen', created_by from graph_entities;
       insert into graph_relations (scope, from_name, to_name, relation_type, created_by) select 'shared', 'e1', name, 'knows', created_by from graph_entities;
       insert into facts (scope, name, description, type, body, author_id)
       values ('shared', 'deploy-window', 'Deploys run Tuesday to Thursday', 'project', 'デプロイは火曜から木曜まで。 배포는 화요일부터.', (select id from agents)),
              ('shared', 'drain-first', 'Drain the queue before a restart of the workers', 'feedback', 'Or jobs are lost.', (select id from agents));`,
    );
    const report = await migrate(old);
    // Every migration after the baseline.
    expect(report.applied).toEqual((await loadMigrations()).slice(1).map((m) => `${String(m.id).padStart(6, "0")}_${m.name}`));
    expect(await schemaOf(old)).toEqual(await schemaOf(fresh));
    expect((await old.query("select id, name from schema_migrations order by id")).rows).toEqual((await loadMigrations()).map((m) => ({ id: m.id, name: m.name })));
    // What the data became: the counts the new bounds keep.
    expect((await old.query("select name, observation_count from graph_entities order by name")).rows).toEqual(["e1", "e2", "e3"].map((name) => ({ name, observation_count: 1 })));
    expect((await old.query<{ n: number }>("select relations as n from graph_relation_ends where name_key = am_graph_key('e1')")).rows[0]!.n).toBe(3);
    expect((await old.query("select scope, slot, entities from graph_scope_entities")).rows).toEqual([{ scope: "shared", slot: 0, entities: 3 }]);
    // Columns the database computes from a function are what that function computes now, for rows stored before:
    // a function an index or a stored column depends on changes only with a migration that recomputes them.
    const derived = await old.query<{ n: number }>("select count(*)::int as n from facts where duplicate_text is distinct from am_duplicate_text(name || ' ' || description)");
    expect(derived.rows[0]!.n).toBe(0);
    expect((await migrate(old)).applied).toEqual([]);
  }, 180_000);

  it("refuses a database made before the baseline but not migrated to its end, saying what to do", async () => {
    const old = await emptyDatabase(backend);
    await migrateAsBefore(old, preBaselineMigrations().slice(0, 40));
    await expect(migrate(old)).rejects.toThrow(/stops at migration 40 \(unknown_author_walked\), short of 44 \(duplicate_japanese_chinese\)\. Upgrade it with a release made before the baseline first/);
  }, 180_000);
});

describe("two migrators racing on a fresh Postgres database", () => {
  it("leave one correct schema", async () => {
    const empty = await createEmptyPostgresDatabase();
    const a = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
    const b = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 2, connectTimeoutMs: 5000 });
    cleanups.push(async () => {
      await a.close();
      await b.close();
      await empty.drop();
    });
    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
    // Exactly one of them did the work; the other found nothing left.
    expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, ra.current]);
    expect([ra.functions.applied.length, rb.functions.applied.length].sort((x, y) => x - y)[0]).toBe(0);
    const recorded = await a.query<{ id: number }>("select id from schema_migrations order by id");
    expect(recorded.rows.map((r) => r.id)).toEqual(Array.from({ length: ra.current }, (_, i) => i + 1));
    expect(await migrationsPending(b, ra.current)).toBe(0);
  });
});
