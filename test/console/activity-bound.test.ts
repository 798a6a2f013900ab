// The console's activity feed reads what the reader may read, not what others
// wrote elsewhere (security audit; am_recent_page): each source
// walked its primary key backwards and kept the readable rows, so a reader of
// one scope beside 20,000 newer rows per source in a scope it cannot read read
// all of them on every page. Now each source is read per readable scope
// through a (scope, id) index (am_recent_page), at most the page size per scope
// without an agent filter, and at most LIST_SCAN_MAX rows with one.
//
// Counted, not timed, on both databases: the rows each call reads from each
// table are the table's sequential-scan rows plus the entries read from its
// indexes (pg_stat_user_tables / pg_stat_user_indexes, flushed with
// pg_stat_force_next_flush). The statements inside am_recent_page are nested
// (a plpgsql function): EXPLAIN ANALYZE of the caller shows a Function Scan
// only, and PGlite's worker has no auto_explain, so the statistics are what
// sees every row read on both.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import type { Database } from "../../src/db/core/database.js";
import { recentFactEvents } from "../../src/facts/review/activity.js";
import { GRAPH_ACTIVITY_SOURCES, recentGraphWrites, type RecentGraphWrites } from "../../src/graph/activity.js";
import { addObservations, createEntities, createRelations, deleteObservations } from "../../src/graph/store.js";
import { addCaller, fact, store } from "../facts/helpers.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const HIDDEN = 20_000;
const MINE = 30;
const LIMIT = 100;
/** A walk of some graph table stopped at its bound. */
const graphCut = (parts: RecentGraphWrites) => GRAPH_ACTIVITY_SOURCES.some((s) => parts[s].stop !== null);
const TABLES = ["fact_events", "graph_entities", "graph_relations", "graph_observations", "graph_deletions"] as const;
type Table = (typeof TABLES)[number];

describe.each(BACKENDS)("the activity feed reads what the reader may read, on %s", (backend) => {
  let tdb: TestDatabase;
  // One connection: its statistics are flushed on demand (pg_stat_force_next_flush).
  let db: Database;
  let reader: Caller;
  let admin: Caller;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 }); // bulk loads
    db = backend === "postgres" ? tdb.openPool(1) : tdb.db;
    const writer = await addCaller(db, "writer", { scopes: ["mine"] });
    const busy = await addCaller(db, "busy", { scopes: ["others"] });
    reader = await addCaller(db, "reader", { kind: "human", scopes: ["mine"] });
    admin = await addCaller(db, "admin", { kind: "human", scopes: ["*"] });
    // The reader's scope: MINE of each, written through the stores.
    for (let i = 0; i < MINE; i++) await store(db, writer, { ...fact(`mine-${i}`), scope: "mine" });
    const w = { scope: "mine", agentId: writer.agentId, maxChars: 4096 };
    await createEntities(db, w, Array.from({ length: MINE }, (_, i) => ({ name: `m${i}`, entityType: "thing", observations: [] })));
    await createRelations(db, w, Array.from({ length: MINE }, (_, i) => ({ from: `m${i}`, to: `m${(i + 1) % MINE}`, relationType: "next" })));
    await addObservations(db, w, [{ entityName: "m0", contents: Array.from({ length: MINE * 2 }, (_, i) => `note ${i}`) }]);
    await deleteObservations(db, w, [{ entityName: "m0", observations: Array.from({ length: MINE }, (_, i) => `note ${i}`) }]);
    // Newer, in a scope the reader cannot read: HIDDEN of each, by another agent.
    await db.query(
      `with f as (
         insert into facts (scope, name, description, type, body, author_id)
         select 'others', 'hidden-' || g, 'Hidden ' || g, 'project', 'Why and how.', $1::bigint from generate_series(1, $2::int) g
         returning id, scope, version, description, type, body, author_id, created_at
       ), v as (
         insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
         select id, version, description, type, body, author_id, created_at from f
       )
       insert into fact_events (fact_id, scope, version, kind, actor_id, at, from_status, to_status)
       select id, scope, version, 'created', author_id, created_at, null, 'draft' from f order by id`,
      [busy.agentId, HIDDEN],
    );
    await db.query(
      `insert into graph_entities (scope, name, entity_type, created_by) select 'others', 'h' || g, 'thing', $1::bigint from generate_series(1, $2::int) g`,
      [busy.agentId, HIDDEN],
    );
    await db.query(
      `insert into graph_relations (scope, from_name, to_name, relation_type, created_by)
       select 'others', 'h' || g, 'h' || (g + 1), 'next', $1::bigint from generate_series(1, $2::int) g`,
      [busy.agentId, HIDDEN],
    );
    await db.query(
      `insert into graph_observations (entity_id, scope, content, created_by)
       select e.id, 'others', 'hidden note', $1::bigint from graph_entities e where e.scope = 'others' order by e.id`,
      [busy.agentId],
    );
    await db.query(
      `insert into graph_deletions (scope, kind, subject, detail, deleted_by)
       select 'others', 'observation', 'h' || g, 'an observation of 11 characters', $1::bigint from generate_series(1, $2::int) g`,
      [busy.agentId, HIDDEN],
    );
    for (const t of [...TABLES, "facts"]) await db.exec(`vacuum analyze ${t}`);
  }, 300_000);
  afterAll(async () => {
    if (db !== tdb?.db) await db?.close();
  });

  /** Rows each table's scans read so far: sequential-scan rows plus index entries read. */
  async function counters(): Promise<Record<string, number>> {
    await db.query("select pg_stat_force_next_flush()");
    await db.query("select pg_stat_clear_snapshot()");
    const r = await db.query<{ relname: string; n: string }>(
      `select t.relname, coalesce(t.seq_tup_read, 0) + coalesce((select sum(i.idx_tup_read) from pg_stat_user_indexes i where i.relid = t.relid), 0) as n
         from pg_stat_user_tables t`,
    );
    return Object.fromEntries(r.rows.map((row) => [row.relname, Number(row.n)]));
  }

  /** Runs one call and returns the rows it read from each table (printed with SHOW_ROWS_READ=1, for docs/console.md). */
  async function rowsRead(label: string, call: () => Promise<unknown>): Promise<Record<Table | "facts", number>> {
    const before = await counters();
    await call();
    const after = await counters();
    const read = Object.fromEntries([...TABLES, "facts"].map((t) => [t, (after[t] ?? 0) - (before[t] ?? 0)])) as Record<Table | "facts", number>;
    if (process.env.SHOW_ROWS_READ) console.log(`${backend}: ${label}: ${JSON.stringify(read)}`);
    return read;
  }

  it("a reader of one scope, beside 20,000 newer rows per source it cannot read: at most the page per readable scope", async () => {
    // Readable: "mine" and "shared". Per source: the page size from each scope's
    // index (and a row or two after: the walk's marker, the window's look-ahead),
    // then one primary-key lookup per row kept.
    const bound = 2 * (LIMIT + 2) + LIMIT;
    for (const actor of [undefined, "writer"]) {
      const facts = await rowsRead(`reader, facts, actor ${actor}`, () => recentFactEvents(db, reader, { actor, limit: LIMIT }));
      expect(facts.fact_events, `fact_events, actor ${actor}`).toBeLessThanOrEqual(bound);
      expect(facts.facts, `facts, actor ${actor}`).toBeLessThanOrEqual(LIMIT);
      const graph = await rowsRead(`reader, graph, actor ${actor}`, () => recentGraphWrites(db, reader, { actor, limit: LIMIT }));
      for (const t of TABLES.slice(1)) expect(graph[t], `${t}, actor ${actor}`).toBeLessThanOrEqual(bound + (t === "graph_entities" ? LIMIT : 0));
    }
  });

  it("still shows exactly what the reader may read, newest first", async () => {
    const facts = await recentFactEvents(db, reader, { limit: LIMIT });
    expect(facts.scanCut).toBe(false);
    expect(facts.events.map((e) => e.name)).toEqual(Array.from({ length: MINE }, (_, i) => `mine-${MINE - 1 - i}`));
    const parts = await recentGraphWrites(db, reader, { limit: LIMIT });
    expect(graphCut(parts)).toBe(false);
    // The parts merged newest first, as the console's page does.
    const writes = GRAPH_ACTIVITY_SOURCES.flatMap((s) => parts[s].writes)
      .sort((a, b) => b.at.localeCompare(a.at) || b.id - a.id)
      .slice(0, LIMIT);
    expect(writes).toHaveLength(LIMIT);
    expect(writes.every((g) => g.scope === "mine" && g.actor === "writer")).toBe(true);
    const kinds = (kind: string, action: string) => writes.filter((g) => g.kind === kind && g.action === action).length;
    // The newest hundred, newest first: the deleted observations, the ones left, the relations, then entities.
    expect([kinds("observation", "deleted"), kinds("observation", "added"), kinds("relation", "added"), kinds("entity", "added")]).toEqual([
      MINE,
      MINE,
      MINE,
      LIMIT - 3 * MINE,
    ]);
  });

  it("a reader of every scope filtering by an agent who wrote only older rows: at most LIST_SCAN_MAX rows per source, and says the walk stopped", async () => {
    const scanMax = 1_000;
    // The window numbering the walk reads a row or two ahead (its peers).
    const SLACK = 5;
    const facts = await rowsRead("admin, facts, actor writer", async () => {
      const r = await recentFactEvents(db, admin, { actor: "writer", limit: LIMIT, scanMax });
      expect(r.events).toEqual([]);
      expect(r.scanCut).toBe(true);
    });
    expect(facts.fact_events).toBeLessThanOrEqual(scanMax + SLACK);
    const graph = await rowsRead("admin, graph, actor writer", async () => {
      const r = await recentGraphWrites(db, admin, { actor: "writer", limit: LIMIT, scanMax });
      expect(graphCut(r)).toBe(true);
    });
    for (const t of TABLES.slice(1)) expect(graph[t], t).toBeLessThanOrEqual(scanMax + SLACK + LIMIT);
    // Without the filter nothing is cut: every row read is kept.
    expect(graphCut(await recentGraphWrites(db, admin, { limit: LIMIT, scanMax }))).toBe(false);
  });
});
