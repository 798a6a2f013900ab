// Totals stay exact for a page past the end (review of the bounded counts:
// counting from the page's offset, an empty page reported the offset itself as
// the total, 50 entities in a scope of 3). Counted from the start instead, up to
// offset + cap, on both backends; past the cap they still say "at least".
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { readGraph, readObservations } from "../../src/graph/read.js";
import { readRelations } from "../../src/graph/relations.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const ANSWER = 100_000;

describe.each(BACKENDS)("graph totals with an offset past the end (%s)", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["s"] });
    const w = { scope: "s", agentId: agent.id, maxChars: 4096 };
    await createEntities(tdb.db, w, [
      { name: "E1", entityType: "thing", observations: ["one", "two"] },
      { name: "E2", entityType: "thing", observations: [] },
      { name: "E3", entityType: "thing", observations: [] },
    ]);
    await createRelations(tdb.db, w, [
      { from: "E1", to: "E2", relationType: "links" },
      { from: "E2", to: "E3", relationType: "links" },
    ]);
  });

  it("read_graph, read_relations and read_observations give the exact totals on an empty page", async () => {
    const graph = await readGraph(tdb.db, "s", { offset: 50 }, ANSWER);
    expect(graph.entities).toEqual([]);
    expect(graph.totalEntities).toBe(3);
    expect(graph.totalEntitiesIsLowerBound).toBeUndefined();

    const relations = await readRelations(tdb.db, "s", { offset: 40 }, ANSWER);
    expect(relations.relations).toEqual([]);
    expect(relations.totalRelations).toBe(2);
    expect(relations.totalRelationsIsLowerBound).toBeUndefined();

    const observations = await readObservations(tdb.db, "s", "E1", { offset: 30 }, ANSWER);
    expect(observations.observations).toEqual([]);
    expect(observations.totalObservations).toBe(2);
    expect(observations.truncated).toBe(false);
  });

  it("pages within the totals keep them exact, and read_graph's total is exact whatever the count cap", async () => {
    expect((await readGraph(tdb.db, "s", { offset: 1, limit: 1 }, ANSWER)).totalEntities).toBe(3);
    const page = await readRelations(tdb.db, "s", { offset: 1, limit: 1 }, ANSWER);
    expect(page.relations.map((r) => r.to)).toEqual(["E3"]);
    expect(page.totalRelations).toBe(2);
    const obs = await readObservations(tdb.db, "s", "E1", { offset: 1, limit: 1 }, ANSWER);
    expect(obs).toMatchObject({ observations: ["two"], totalObservations: 2, truncated: false });
    const first = await readObservations(tdb.db, "s", "E1", { offset: 0, limit: 1 }, ANSWER);
    expect(first).toMatchObject({ observations: ["one"], totalObservations: 2, truncated: true, nextOffset: 1 });
    const capped = await readGraph(tdb.db, "s", { offset: 0, limit: 1 }, ANSWER, { countCap: 1 });
    expect(capped).toMatchObject({ totalEntities: 3, truncated: true, nextOffset: 1 });
    expect(capped.totalEntitiesIsLowerBound).toBeUndefined();
  });
});
