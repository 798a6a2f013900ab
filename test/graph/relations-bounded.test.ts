// Graph reads whose work is bounded by constants, not by what an agent wrote
// (security review: 200,000 dangling relations, written in ~35 s, made one
// `read_relations {unattached: true, limit: 1}` test every relation of the
// scope, two SHA-256 key probes each, to count them: 0.75 s embedded, 2.5-3.4 s
// on Postgres). Each statement the store runs for a read is recorded and
// EXPLAIN ANALYZEd as it ran, and its rows read are counted, never timed:
// with a cap of 100 and a walk of 300 relations, no statement reads more than
// about that from any graph table, while the scope holds 2,000 of each kind.
// Following the cursors still lists every relation once, in order (both
// databases).
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { Database, Queryable } from "../../src/db/core/database.js";
import { readGraph, readObservations } from "../../src/graph/read.js";
import { readRelations } from "../../src/graph/relations.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

const MANY = 2_000;
const CAP = 100;
const SCAN = 300;
const BOUNDS = { countCap: CAP, scanMax: SCAN };
const ANSWER = 100_000;

async function load(db: Database): Promise<void> {
  const agent = await createAgent(db, { name: "loader", kind: "agent", writeScopes: ["s"] });
  // MANY dangling relations, then a hub entity with MANY relations, MANY
  // entities, and one entity with MANY observations; another scope beside it.
  await db.query(
    `insert into graph_relations (scope, from_name, to_name, relation_type, created_by)
     select s, 'a-' || g, 'b-' || g, 'rel', $1 from generate_series(1, $2::int) g, unnest(array['s', 't']) s order by g, s`,
    [agent.id, MANY],
  );
  await db.query(
    `insert into graph_entities (scope, name, entity_type, created_by)
     select 's', 'e-' || g, 'thing', $1 from generate_series(1, $2::int) g`,
    [agent.id, MANY],
  );
  await db.query(`insert into graph_entities (scope, name, entity_type, created_by) values ('s', 'Hub', 'hub', $1), ('s', 'Big', 'box', $1)`, [agent.id]);
  await loadPastBounds(db, [
    [
      `insert into graph_relations (scope, from_name, to_name, relation_type, created_by)
       select 's', 'Hub', 'e-' || g, 'links', $1 from generate_series(1, $2::int) g`,
      [agent.id, MANY],
    ],
    [
      `insert into graph_observations (entity_id, content, created_by, scope)
       select (select id from graph_entities where scope = 's' and name = 'Big'), 'observation ' || g, $1, 's' from generate_series(1, $2::int) g`,
      [agent.id, MANY],
    ],
  ]);
  await db.exec("analyze graph_entities; analyze graph_relations; analyze graph_observations");
}

describe("graph reads bounded by constants (postgres): rows read per statement", () => {
  let tdb: TestDatabase;
  const ran: Array<{ text: string; params: unknown[] }> = [];
  // The database as the store sees it, recording every statement it runs.
  let recording: Database;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    await load(tdb.db);
    recording = new Proxy(tdb.db, {
      get(target, key, receiver) {
        if (key === "query")
          return (text: string, params: unknown[] = [], ...rest: unknown[]) => {
            ran.push({ text, params });
            return (target.query as (...a: unknown[]) => unknown)(text, params, ...rest);
          };
        if (key === "transaction") return (work: (tx: Queryable) => Promise<unknown>) => target.transaction((tx) => work(recordingTx(tx)));
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }, 120_000);

  function recordingTx(tx: Queryable): Queryable {
    return new Proxy(tx, {
      get(target, key, receiver) {
        if (key === "query")
          return (text: string, params: unknown[] = [], ...rest: unknown[]) => {
            ran.push({ text, params });
            return (target.query as (...a: unknown[]) => unknown)(text, params, ...rest);
          };
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** Runs `read`, then EXPLAIN ANALYZEs each statement it ran: the most rows one statement read from `table`, and its most index probes of it. */
  async function worstOf(read: () => Promise<unknown>, table: string): Promise<{ rows: number; probes: number }> {
    ran.length = 0;
    await read();
    let rows = 0;
    let probes = 0;
    for (const { text, params } of ran.filter((s) => /^\s*(with|select)/i.test(s.text))) {
      const plan = (await tdb.db.query<{ "QUERY PLAN": Array<{ Plan: AnalyzedPlanNode }> }>(`explain (analyze, format json) ${text}`, params)).rows[0]!["QUERY PLAN"][0]!.Plan;
      const scans = planNodes(plan).filter((n) => n["Relation Name"] === table);
      const read = scans.reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"], 0);
      rows = Math.max(rows, read);
      probes = Math.max(probes, scans.reduce((sum, n) => sum + n["Actual Loops"], 0));
    }
    return { rows, probes };
  }

  it("read_relations {unattached} tests at most the walk's bound of relations, and probes entities for those only", async () => {
    const work = await worstOf(() => readRelations(recording, "s", { unattached: true, limit: 1 }, ANSWER, BOUNDS), "graph_relations");
    expect(work.rows).toBeLessThanOrEqual(SCAN + 10);
    const probes = await worstOf(() => readRelations(recording, "s", { unattached: true, limit: 1 }, ANSWER, BOUNDS), "graph_entities");
    expect(probes.probes).toBeLessThanOrEqual(2 * SCAN);
    const page = await readRelations(recording, "s", { unattached: true, limit: 1 }, ANSWER, BOUNDS);
    expect(page.relations.map((r) => r.from)).toEqual(["a-1"]);
    expect(page).toMatchObject({ truncated: true, totalRelations: SCAN, totalRelationsIsLowerBound: true });
  });

  it("read_relations {names} of a name with more relations than the cap reads the cap's lists, then walks at most its bound", async () => {
    const work = await worstOf(() => readRelations(recording, "s", { names: ["Hub"], limit: 5 }, ANSWER, BOUNDS), "graph_relations");
    expect(work.rows).toBeLessThanOrEqual(2 * (CAP + 1) + SCAN + 10);
    // Its relations come after the 2,000 dangling ones: the first call walks past 300 of those and stops.
    const page = await readRelations(recording, "s", { names: ["Hub"], limit: 5 }, ANSWER, BOUNDS);
    expect(page).toMatchObject({ relations: [], truncated: true, scanCut: true, totalRelations: 0, totalRelationsIsLowerBound: true });
  });

  it("read_relations of every relation counts up to the cap", async () => {
    const work = await worstOf(() => readRelations(recording, "s", { limit: 5 }, ANSWER, BOUNDS), "graph_relations");
    // The count (cap + 1) and the page (read twice: its ids, then its rows).
    expect(work.rows).toBeLessThanOrEqual(CAP + 20);
    const page = await readRelations(recording, "s", { limit: 5 }, ANSWER, BOUNDS);
    expect(page).toMatchObject({ totalRelations: CAP, totalRelationsIsLowerBound: true, truncated: true, nextOffset: 5 });
  });

  it("read_observations reads the page it shows and says how many observations there are, exactly", async () => {
    const work = await worstOf(() => readObservations(recording, "s", "Big", { limit: 5 }, ANSWER, BOUNDS), "graph_observations");
    expect(work.rows).toBeLessThanOrEqual(10);
    const page = await readObservations(recording, "s", "Big", { limit: 5 }, ANSWER, BOUNDS);
    expect(page).toMatchObject({ totalObservations: MANY, truncated: true, nextOffset: 5 });
  });

  it("read_graph reads the page it shows and says how many entities the scope holds, exactly", async () => {
    const work = await worstOf(() => readGraph(recording, "s", { limit: 5 }, ANSWER, BOUNDS), "graph_entities");
    expect(work.rows).toBeLessThanOrEqual(10);
    const page = await readGraph(recording, "s", { limit: 5 }, ANSWER, BOUNDS);
    expect(page).toMatchObject({ totalEntities: MANY + 2, truncated: true, nextOffset: 5 });
    expect(page.totalEntitiesIsLowerBound).toBeUndefined();
  });
});

describe.each(BACKENDS)("following read_relations' cursors lists every relation once, in order (%s)", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    await load(tdb.db);
  }, 120_000);

  async function follow(input: { names?: string[]; unattached?: boolean }, limit: number, answer: number): Promise<{ froms: string[]; pages: number; totals: number[] }> {
    const froms: string[] = [];
    const totals: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await readRelations(tdb.db, "s", { ...input, limit, ...(cursor ? { cursor } : {}) }, answer, BOUNDS);
      pages++;
      expect(page.offset).toBe(froms.length);
      froms.push(...page.relations.map((r) => `${r.from}>${r.to}`));
      totals.push(page.totalRelations);
      if (!page.truncated) {
        expect(page.totalRelationsIsLowerBound).toBeUndefined();
        expect(page.totalRelations).toBe(froms.length);
        break;
      }
      cursor = page.nextCursor;
      expect(cursor).toBeDefined();
      expect(pages).toBeLessThan(500);
    }
    return { froms, pages, totals };
  }

  const dangling = Array.from({ length: MANY }, (_, i) => `a-${i + 1}>b-${i + 1}`);
  const hub = Array.from({ length: MANY }, (_, i) => `Hub>e-${i + 1}`);

  it("unattached: every dangling relation, none attached, across scan cuts and page cuts", async () => {
    for (const limit of [1_000, 37]) {
      const { froms } = await follow({ unattached: true }, limit, ANSWER);
      expect(froms).toEqual(dangling);
    }
    // Pages cut by their text, not their limit.
    expect((await follow({ unattached: true }, 5_000, 2_000)).froms).toEqual(dangling);
  });

  it("names past the cap (walked), with and without unattached, and every relation", async () => {
    expect((await follow({ names: ["Hub"] }, 333, ANSWER)).froms).toEqual(hub);
    expect((await follow({ names: ["Hub", "a-7"], unattached: true }, 1_000, ANSWER)).froms).toEqual([...dangling, ...hub]);
    expect((await follow({}, 1_000, ANSWER)).froms).toEqual([...dangling, ...hub]);
  });

  it("names below the cap: one exact page from the lists, and offsets still page", async () => {
    const page = await readRelations(tdb.db, "s", { names: ["e-5", "a-9", "b-10"] }, ANSWER, BOUNDS);
    expect(page.relations.map((r) => `${r.from}>${r.to}`)).toEqual(["a-9>b-9", "a-10>b-10", "Hub>e-5"]);
    expect(page).toMatchObject({ totalRelations: 3, truncated: false });
    expect(page.totalRelationsIsLowerBound).toBeUndefined();
    const second = await readRelations(tdb.db, "s", { names: ["e-5", "a-9", "b-10"], limit: 1, offset: 1 }, ANSWER, BOUNDS);
    expect(second).toMatchObject({ offset: 1, totalRelations: 3, truncated: true, nextOffset: 2 });
    expect(second.relations.map((r) => r.from)).toEqual(["a-10"]);
  });

  it("an offset past a scan cut goes on by cursor and lands on the same relation", async () => {
    const page = await readRelations(tdb.db, "s", { unattached: true, limit: 2, offset: 1_000 }, ANSWER, BOUNDS);
    let current = page;
    let guard = 0;
    while (current.relations.length === 0 && current.truncated && guard++ < 50) {
      expect(current.scanCut).toBe(true);
      current = await readRelations(tdb.db, "s", { unattached: true, limit: 2, cursor: current.nextCursor! }, ANSWER, BOUNDS);
    }
    expect(current.offset).toBe(1_000);
    expect(current.relations.map((r) => r.from)).toEqual(["a-1001", "a-1002"]);
  });
});
