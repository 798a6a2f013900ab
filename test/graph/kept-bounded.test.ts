// An answer that shows a hub entity reads a bounded part of its relations and
// observations (migration 000036). open_nodes and search_nodes collected every
// relation touching the entities shown, to count them and to take the first in
// id order, and counted every observation of each: an entity with 200,000
// relations cost each such call ~1.1-1.3 s on the embedded database, whose
// one connection every agent waits for. Now each entity's relations are read
// in id order per side, no more than the answer could show, and counted up to
// the count cap ("at least" past it), as its observations are.
//
// Counted, not timed: EXPLAIN ANALYZE of the statements the store runs gives
// the rows each plan node read from graph_relations and graph_observations
// (kept, or removed by a filter or a recheck, times its loops). The scope
// holds more relations and observations than any bound below, arranged so
// that the statistics say one name holds nearly all of them (the planner then
// liked walking the primary key and filtering every other name's rows out).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { OBSERVATION_FRAME_CHARS, observationCountCap, RELATION_FRAME_CHARS, relationCountCap } from "../../src/graph/bounds.js";
import { openNodes } from "../../src/graph/read.js";
import * as sql from "../../src/graph/read-sql.js";
import { searchNodes } from "../../src/graph/search.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { likePattern } from "../../src/text.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

const SPOKES = 30_000;
const HEAVY = 30_000;
const CAP = 500;
const ANSWER = 20_000;
const HALF = ANSWER / 2;

describe.each(BACKENDS)("showing a hub entity on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 }); // bulk loads
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["s"] });
    const w = { scope: "s", agentId: agent.id, maxChars: 4096 };
    await createEntities(tdb.db, w, ["Hub", "Heavy", "A", "B", "Quiet"].map((name) => ({ name, entityType: name === "Hub" ? "hub" : "thing", observations: [] })));
    await loadPastBounds(tdb.db, [
      [
        `insert into graph_relations (scope, from_name, to_name, relation_type, created_by)
         select 's', 'Hub', 'spoke-' || i, 'links', $1 from generate_series(1, $2::int) i`,
        [agent.id, SPOKES],
      ],
      [
        `insert into graph_observations (entity_id, scope, content, created_by)
         select (select id from graph_entities where name = 'Heavy'), 's', 'observation ' || i, $1 from generate_series(1, $2::int) i`,
        [agent.id, HEAVY],
      ],
    ]);
    // Relations between two entities shown are met from both: listed and counted once.
    await createRelations(tdb.db, w, [
      { from: "A", to: "B", relationType: "x" },
      { from: "B", to: "A", relationType: "y" },
      { from: "A", to: "A", relationType: "self" },
    ]);
    await loadPastBounds(tdb.db, [[`insert into graph_relations (scope, from_name, to_name, relation_type, created_by) values ('s', 'Hub', 'A', 'points', $1)`, [agent.id]]]);
    await tdb.db.query("analyze");
  }, 300_000);
  afterAll(async () => {
    await tdb?.drop();
  });

  /** Rows read from the graph's big tables by one EXPLAIN ANALYZE, per table. */
  async function rowsRead(statement: string, params: unknown[]): Promise<{ relations: number; observations: number }> {
    const r = await tdb.db.transaction(
      async (tx) => tx.query<{ "QUERY PLAN": Array<{ Plan: AnalyzedPlanNode }> | string }>(`explain (analyze, format json) ${statement}`, params),
      // As am_search_nodes runs SEARCH_NODES; OPEN_NODES has no such setting and is measured with and without it.
      { withoutSeqScans: statement !== sql.OPEN_NODES },
    );
    const raw = r.rows[0]!["QUERY PLAN"];
    const plan = (typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: AnalyzedPlanNode }>) : raw)[0]!.Plan;
    const read = (table: string) =>
      planNodes(plan)
        .filter((n) => n["Relation Name"] === table)
        .reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"], 0);
    return { relations: read("graph_relations"), observations: read("graph_observations") };
  }

  // What one answer may read: for each entity shown and side, the relations the
  // answer could show and twice the count's cap; for each entity, the
  // observations it could show and the count's cap; and the rows shown again.
  const relationBound = (entities: number) => {
    const shown = Math.floor(HALF / RELATION_FRAME_CHARS) + 1;
    return entities * 2 * (shown + 2 * (relationCountCap(CAP, HALF) + 1)) + shown;
  };
  const observationBound = (entities: number) => entities * (2 * (Math.floor(HALF / OBSERVATION_FRAME_CHARS) + 1) + observationCountCap(CAP, HALF) + 1);

  it("open_nodes of the hub shows its first relations in id order and counts them up to the cap", async () => {
    const g = await openNodes(tdb.db, "s", ["Hub"], ANSWER, { countCap: CAP });
    const first = await tdb.db.query<{ to_name: string }>("select to_name from graph_relations where from_name = 'Hub' order by id limit $1::int", [g.relations.length]);
    expect(g.relations.length).toBeGreaterThan(10);
    expect(g.relations.map((r) => r.to)).toEqual(first.rows.map((r) => r.to_name));
    expect(g).toMatchObject({ relationsTruncated: true, totalRelations: relationCountCap(CAP, HALF), totalRelationsIsLowerBound: true });
    expect(g.nextRelations).toMatchObject({ scope: "s", names: ["Hub"], offset: g.relations.length });
  });

  it("open_nodes of an entity with more observations than the cap says 'at least'", async () => {
    const g = await openNodes(tdb.db, "s", ["Heavy"], ANSWER, { countCap: CAP });
    expect(g.entities[0]).toMatchObject({ observationsTruncated: true, totalObservations: observationCountCap(CAP, HALF), totalObservationsIsLowerBound: true });
    expect(g.entities[0]!.observations.slice(0, 2)).toEqual(["observation 1", "observation 2"]);
  });

  it("lists and counts once a relation met from both of its entities, exactly below the cap", async () => {
    const g = await openNodes(tdb.db, "s", ["A", "B"], ANSWER, { countCap: CAP });
    expect(g.relations.map((r) => `${r.from}-${r.relationType}-${r.to}`)).toEqual(["A-x-B", "B-y-A", "A-self-A", "Hub-points-A"]);
    expect(g.relationsTruncated).toBeUndefined();
  });

  it.each([
    ["the hub", ["Hub"]],
    ["the heavy entity", ["Heavy"]],
    ["a quiet entity beside them", ["Quiet"]],
    ["all three", ["Hub", "Heavy", "Quiet"]],
  ])("open_nodes of %s reads a bounded number of rows, whatever the scope holds", async (_label, names) => {
    const read = await rowsRead(sql.OPEN_NODES, ["s", names, HALF, HALF, CAP]);
    expect(read.relations).toBeLessThanOrEqual(relationBound(names.length));
    expect(read.observations).toBeLessThanOrEqual(observationBound(names.length));
    // The bounds are far below what the scope holds: the test means something.
    expect(relationBound(names.length)).toBeLessThan(SPOKES / 2);
    expect(observationBound(names.length)).toBeLessThan(HEAVY / 2);
  });

  it.each([
    ["hub", "SEARCH_NODES"],
    ["heavy", "SEARCH_NODES"],
    ["e", "SEARCH_NODES_SHORT"],
  ] as const)("search_nodes for %s reads a bounded number of rows of the entities it shows", async (query, statement) => {
    // $1 scope, $2 pattern, $3 limit, $4 offset, $5/$6 budgets, $7 count cap, $8 after, $9 steps, $10 observation.
    const read = await rowsRead(sql[statement], ["s", likePattern(query), 10, 0, HALF, HALF, CAP, 0, 100, 0]);
    expect(read.relations).toBeLessThanOrEqual(relationBound(5));
    // The walk of a short query tests up to 200 observations a step on top.
    expect(read.observations).toBeLessThanOrEqual(observationBound(5) + 100 * 200);
    const page = await searchNodes(tdb.db, "s", query, { limit: 10 }, ANSWER, CAP);
    const hub = page.entities.find((e) => e.name === "Hub");
    if (hub) expect(page).toMatchObject({ relationsTruncated: true, totalRelationsIsLowerBound: true });
  });
});
