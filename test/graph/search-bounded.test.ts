// search_nodes' work is bounded by constants, not by what an agent wrote
// (security audit: "ipsum lorem" over 600,000 observations of "observation N
// lorem ipsum", written in 60 calls, took 2.6 s per call embedded and ~1 s on
// Postgres: every row of the scope is a trigram candidate, and a GIN bitmap
// scan reads and rechecks all of them before any LIMIT applies). Here the
// statement the store runs is replayed with auto_explain (the function's own
// statements, Postgres) and the rows it reads from each graph table are
// counted, never timed: with a walk of 300 entities / 600 observations per
// call, no call reads more than about that, while the scope holds 6,000
// candidate observations and 3,000 candidate names. Following the cursors
// still gives every match once, in order (both databases), and a scope no
// larger than one call's walk still goes through the indexes.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { Database } from "../../src/db/core/database.js";
import { searchNodes } from "../../src/graph/search.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

const ENTITIES = 30;
const PER_ENTITY = 200;
const NAMED = 3_000;
const SCAN = 300;
const CAP = 100;
const ANSWER = 100_000;
// Observations that match "ipsum lorem": (entity index, observation index).
// None within the first two calls' walks (entities 0-5): the calls measured
// show no entity, whose own observations the page reads.
const NEEDLES: Array<[number, number]> = [[10, 5], [10, 150], [17, 199], [29, 0]];

async function load(db: Database): Promise<void> {
  const agent = await createAgent(db, { name: "loader", kind: "agent", writeScopes: ["s", "n", "small"] });
  // Scope s: ENTITIES entities of PER_ENTITY observations, every one a trigram
  // candidate of "ipsum lorem" ("… lorem ipsum"), a few of them matches.
  await db.query(
    `insert into graph_entities (scope, name, entity_type, created_by) select 's', 'ent-' || g, 'thing', $1 from generate_series(0, $2::int - 1) g`,
    [agent.id, ENTITIES],
  );
  await db.query(
    `insert into graph_observations (entity_id, content, created_by, scope)
     select e.id, case when (substr(e.name, 5)::int, j) in (${NEEDLES.map(([a, b]) => `(${a}, ${b})`).join(", ")})
                       then 'needle ' || j || ' ipsum lorem' else 'observation ' || e.name || '-' || j || ' lorem ipsum' end, $1, 's'
       from graph_entities e, generate_series(0, $2::int - 1) j where e.scope = 's' order by e.id, j`,
    [agent.id, PER_ENTITY],
  );
  // Scope n: NAMED entities whose names are all candidates, every 1,000th a match.
  await db.query(
    `insert into graph_entities (scope, name, entity_type, created_by)
     select 'n', case when g % 1000 = 999 then 'item ' || g || ' ipsum lorem' else 'item ' || g || ' lorem ipsum' end, 'thing', $1
       from generate_series(0, $2::int - 1) g`,
    [agent.id, NAMED],
  );
  // A small scope: the indexes serve it.
  await db.query(`insert into graph_entities (scope, name, entity_type, created_by) select 'small', 'little ' || g, 'thing', $1 from generate_series(0, 9) g`, [agent.id]);
  await db.exec("analyze graph_entities; analyze graph_observations");
}

const expectedS = NEEDLES.map(([a]) => `ent-${a}`).filter((n, i, all) => all.indexOf(n) === i);
const expectedN = Array.from({ length: NAMED }, (_, g) => g).filter((g) => g % 1000 === 999).map((g) => `item ${g} ipsum lorem`);

describe("search_nodes reads a bounded number of rows per call (postgres, auto_explain)", () => {
  let tdb: TestDatabase;
  let client: pg.Client;
  const plans: AnalyzedPlanNode[] = [];
  const ran: Array<{ text: string; params: unknown[] }> = [];
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
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    client = new pg.Client({ connectionString: tdb.url });
    await client.connect();
    client.on("notice", (n) => {
      const text = n.message ?? "";
      if (!text.includes('"Plan"')) return;
      plans.push((JSON.parse(text.slice(text.indexOf("{"))) as { Plan: AnalyzedPlanNode }).Plan);
    });
    await client.query(
      "load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; " +
        "set auto_explain.log_analyze = on; set auto_explain.log_format = json; set auto_explain.log_level = notice; set client_min_messages = notice",
    );
  }, 120_000);
  afterAll(async () => {
    await client?.end();
  });

  /** Runs one search through the store, replays its statements with auto_explain: rows read from `table`, all statements together. */
  async function rowsRead(scope: string, query: string, table: string, cursor?: string): Promise<number> {
    ran.length = 0;
    // The embedded database's way (a large scope walked), measured where auto_explain can count it.
    await searchNodes(recording, scope, query, { limit: 10, ...(cursor ? { cursor } : {}) }, ANSWER, CAP, SCAN, true);
    plans.length = 0;
    for (const { text, params } of ran) await client.query(text, params);
    return plans
      .flatMap((p) => planNodes(p))
      .filter((n) => n["Relation Name"] === table)
      .reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"], 0);
  }

  it("common trigrams in observations, few matches: at most the walk's observations (and the scope-size probe)", async () => {
    // The walk: 2 × SCAN observations; the probe: 2 × SCAN + 1 index entries.
    expect(await rowsRead("s", "ipsum lorem", "graph_observations")).toBeLessThanOrEqual(4 * SCAN + 50);
    expect(await rowsRead("s", "ipsum lorem", "graph_entities")).toBeLessThanOrEqual(2 * SCAN + 50);
  });

  it("common trigrams in names, few matches: at most the walk's entities (and the probe)", async () => {
    expect(await rowsRead("n", "ipsum lorem", "graph_entities")).toBeLessThanOrEqual(4 * SCAN + 50);
  });

  it("a later page (after a cursor) is bounded the same way", async () => {
    const first = await searchNodes(tdb.db, "s", "ipsum lorem", { limit: 10 }, ANSWER, CAP, SCAN, true);
    expect(first.nextCursor).toBeDefined();
    expect(await rowsRead("s", "ipsum lorem", "graph_observations", first.nextCursor)).toBeLessThanOrEqual(4 * SCAN + 50);
  });
});

describe.each(BACKENDS)("search_nodes over a scope larger than one call's walk (%s)", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    await load(tdb.db);
  }, 120_000);

  async function follow(scope: string, query: string, limit: number): Promise<{ names: string[]; pages: number }> {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await searchNodes(tdb.db, scope, query, { limit, ...(cursor ? { cursor } : {}) }, ANSWER, CAP, SCAN, true);
      pages++;
      expect(page.offset).toBe(names.length);
      names.push(...page.entities.map((e) => e.name));
      if (!page.truncated) break;
      cursor = page.nextCursor;
      expect(cursor).toBeDefined();
      expect(pages).toBeLessThan(500);
    }
    return { names, pages };
  }

  it("following the cursors gives every match once, in order", async () => {
    for (const limit of [1, 2, 10]) {
      expect((await follow("s", "ipsum lorem", limit)).names).toEqual(expectedS);
      expect((await follow("n", "ipsum lorem", limit)).names).toEqual(expectedN);
    }
    // Every observation is walked: ENTITIES × PER_ENTITY / (2 × SCAN) calls at least.
    expect((await follow("s", "ipsum lorem", 10)).pages).toBeGreaterThanOrEqual((ENTITIES * PER_ENTITY) / (2 * SCAN));
  });

  it("walked only on the embedded database: on Postgres a large scope goes through the indexes, one exact answer", async () => {
    const page = await searchNodes(tdb.db, "s", "ipsum lorem", { limit: 1000 }, ANSWER, CAP, SCAN);
    if (backend === "pglite") expect(page.scanCut).toBe(true);
    else {
      expect(page.entities.map((e) => e.name)).toEqual(expectedS.slice(0, 1000));
      expect(page.scanCut).toBeUndefined();
    }
  });

  it("a scope no larger than one call's walk still goes through the indexes: one exact answer", async () => {
    const page = await searchNodes(tdb.db, "small", "little 7", { limit: 10 }, ANSWER, CAP, SCAN);
    expect(page.entities.map((e) => e.name)).toEqual(["little 7"]);
    expect(page).toMatchObject({ totalEntities: 1, truncated: false });
    expect(page.totalEntitiesIsLowerBound).toBeUndefined();
  });
});
