// An answer that shows a hub entity reads a bounded part of its relations and
// observations (migration 000036). open_nodes and search_nodes collected every
// relation touching the entities shown, to count them and to take the first in
// id order, and counted every observation of each: an entity with 200,000
// relations cost each such call ~1.1-1.3 s on the embedded database, whose
// one connection every agent waits for. Now each entity's relations are read
// in id order per side, no more than the answer could show, and counted up to
// the count cap ("at least" past it), as its observations are.
//
// Counted, not timed, on Postgres (auto_explain sees the statements of the
// read functions; the functions are the same on both databases): the rows each
// plan node read from graph_relations and graph_observations (kept, or removed
// by a filter or a recheck, times its loops). The scope
// holds more relations and observations than any bound below, arranged so
// that the statistics say one name holds nearly all of them (the planner then
// liked walking the primary key and filtering every other name's rows out).
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { openNodes } from "../../src/graph/read.js";
import { searchNodes } from "../../src/graph/search.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";
import * as sql from "../../src/graph/read-sql.js";
import { likePattern } from "../../src/text.js";
import { rowsRead } from "../support/plans.js";

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

  let frames: { observation: number; relation: number };
  beforeAll(async () => {
    const r = await tdb.db.query<{ o: number; r: number }>("select am_graph_frame('observation') as o, am_graph_frame('relation') as r");
    frames = { observation: r.rows[0]!.o, relation: r.rows[0]!.r };
  });

  /** Rows one call of a read function read from the graph's big tables. */
  async function rowsOf(text: string, params: unknown[]): Promise<{ relations: number; observations: number }> {
    const r = await rowsRead(tdb.url!, text, params, ["graph_relations", "graph_observations"]);
    return { relations: r.graph_relations, observations: r.graph_observations };
  }

  // What one answer may read: for each entity shown and side, the relations the
  // answer could show and twice the count's cap; for each entity, the
  // observations it could show (sized, then shown); and the rows shown again.
  const relationCap = () => Math.max(CAP, Math.floor(HALF / frames.relation) + 1);
  const relationBound = (entities: number) => {
    const shown = Math.floor(HALF / frames.relation) + 1;
    return entities * 2 * (shown + 2 * (relationCap() + 1)) + shown;
  };
  const observationBound = (entities: number) => entities * 2 * (Math.floor(HALF / frames.observation) + 1);

  it("open_nodes of the hub shows its first relations in id order and counts them up to the cap", async () => {
    const g = await openNodes(tdb.db, "s", ["Hub"], ANSWER, { countCap: CAP });
    const first = await tdb.db.query<{ to_name: string }>("select to_name from graph_relations where from_name = 'Hub' order by id limit $1::int", [g.relations.length]);
    expect(g.relations.length).toBeGreaterThan(10);
    expect(g.relations.map((r) => r.to)).toEqual(first.rows.map((r) => r.to_name));
    expect(g).toMatchObject({ relationsTruncated: true, totalRelations: relationCap(), totalRelationsIsLowerBound: true });
    expect(g.nextRelations).toMatchObject({ scope: "s", names: ["Hub"], offset: g.relations.length });
  });

  it("open_nodes of an entity with more observations than an answer shows says how many it has, exactly", async () => {
    const g = await openNodes(tdb.db, "s", ["Heavy"], ANSWER, { countCap: CAP });
    expect(g.entities[0]).toMatchObject({ observationsTruncated: true, totalObservations: HEAVY });
    expect(g.entities[0]!.observations.slice(0, 2)).toEqual(["observation 1", "observation 2"]);
  });

  it("lists and counts once a relation met from both of its entities, exactly below the cap", async () => {
    const g = await openNodes(tdb.db, "s", ["A", "B"], ANSWER, { countCap: CAP });
    expect(g.relations.map((r) => `${r.from}-${r.relationType}-${r.to}`)).toEqual(["A-x-B", "B-y-A", "A-self-A", "Hub-points-A"]);
    expect(g.relationsTruncated).toBeUndefined();
  });

  // (Measured where auto_explain can see the functions' statements: Postgres.)
  if (backend === "postgres") {
    it.each([
      ["the hub", ["Hub"]],
      ["the heavy entity", ["Heavy"]],
      ["a quiet entity beside them", ["Quiet"]],
      ["all three", ["Hub", "Heavy", "Quiet"]],
    ])("open_nodes of %s reads a bounded number of rows, whatever the scope holds", async (_label, names) => {
      const read = await rowsOf(sql.GRAPH_OPEN, ["s", names, HALF, HALF, CAP]);
      // Quiet has nothing to read: the others show that the count sees the reads.
      if (names.includes("Hub")) expect(read.relations).toBeGreaterThan(0);
      expect(read.relations).toBeLessThanOrEqual(relationBound(names.length));
      expect(read.observations).toBeLessThanOrEqual(observationBound(names.length));
      // The bounds are far below what the scope holds: the test means something.
      expect(relationBound(names.length)).toBeLessThan(SPOKES / 2);
      expect(observationBound(names.length)).toBeLessThan(HEAVY / 2);
    });

    it.each([
      ["hub", true],
      ["heavy", true],
      ["e", false],
    ] as const)("search_nodes for %s reads a bounded number of rows of the entities it shows", async (query, listable) => {
      const read = await rowsOf(sql.GRAPH_SEARCH, ["s", likePattern(query), 10, 0, HALF, HALF, CAP, 0, 10_000, 0, listable, false]);
      expect(read.relations).toBeLessThanOrEqual(relationBound(5));
      // The walk of a short query tests up to 200 observations a step on top.
      expect(read.observations).toBeLessThanOrEqual(observationBound(5) + 100 * 200);
    });
  }

  // Only the hub has more relations than an answer shows; the other pages show none of it.
  it.each([
    ["hub", true],
    ["heavy", false],
    ["e", false],
  ] as const)("search_nodes for %s says when the relations of what it shows were cut (shows the hub: %s)", async (query, showsHub) => {
    const page = await searchNodes(tdb.db, "s", query, { limit: 10 }, ANSWER, CAP);
    expect(page.entities.some((e) => e.name === "Hub")).toBe(showsHub);
    if (showsHub) expect(page).toMatchObject({ relationsTruncated: true, totalRelationsIsLowerBound: true });
    else expect(page.relationsTruncated).toBeUndefined();
  });
});
