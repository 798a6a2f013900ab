// The graph store on both backends: semantics, limits, scopes, paging, provenance.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { DomainError } from "../../src/errors.js";
import { openNodes, readGraph } from "../../src/graph/read.js";
import { searchNodes } from "../../src/graph/search.js";
import type { GraphWriter } from "../../src/graph/types.js";
import { addObservations, createEntities, createRelations, deleteEntities, deleteObservations, deleteRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const MAX = 4096;
/** A budget large enough for every whole answer here (the default is 100,000). */
const ANSWER = 1_000_000;

async function rejects(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe(code);
  expect((error as DomainError).message).toMatch(message);
}

describe.each(BACKENDS)("graph store on %s", (backend) => {
  let tdb: TestDatabase;
  let w: GraphWriter;
  let other: GraphWriter;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared", "team"] });
    w = { scope: "shared", agentId: agent.id, maxChars: MAX };
    other = { ...w, scope: "team" };
  });

  const countRows = async (table: string) => (await tdb.db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;

  it("creates entities once per name and scope; in-call duplicates keep the first copy", async () => {
    const created = await createEntities(tdb.db, w, [
      { name: "a", entityType: "t", observations: ["x", "y", "x"] },
      { name: "b", entityType: "t", observations: [] },
      { name: "a", entityType: "other", observations: ["z"] },
    ]);
    expect(created).toEqual([
      { name: "a", entityType: "t", observations: ["x", "y"] },
      { name: "b", entityType: "t", observations: [] },
    ]);
    expect(await createEntities(tdb.db, w, [{ name: "a", entityType: "t", observations: ["new"] }])).toEqual([]);
    // Another scope is another graph.
    expect(await createEntities(tdb.db, other, [{ name: "a", entityType: "team-type", observations: [] }])).toHaveLength(1);
    const shared = await openNodes(tdb.db, "shared", ["a"], ANSWER);
    expect(shared.entities.map((e) => [e.entityType, e.observations])).toEqual([["t", ["x", "y"]]]);
  });

  it("records provenance on entities, observations and relations", async () => {
    await createRelations(tdb.db, w, [{ from: "a", to: "b", relationType: "r" }]);
    await addObservations(tdb.db, w, [{ entityName: "b", contents: ["later"] }]);
    const g = await openNodes(tdb.db, "shared", ["b"], ANSWER);
    expect(g.entities[0]).toMatchObject({ name: "b", createdBy: "writer", observations: ["later"] });
    expect(g.entities[0]!.observationsMeta).toEqual([{ createdBy: "writer", createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
    expect(g.relations).toEqual([{ from: "a", to: "b", relationType: "r", createdBy: "writer", createdAt: expect.any(String) }]);
  });

  it("add_observations fails whole when an entity is missing, and attributes texts to the first item that carried them", async () => {
    await rejects(
      addObservations(tdb.db, w, [
        { entityName: "a", contents: ["never"] },
        { entityName: "ghost", contents: ["y"] },
      ]),
      "not_found",
      /^Entity with name ghost not found/,
    );
    expect((await openNodes(tdb.db, "shared", ["a"], ANSWER)).entities[0]!.observations).toEqual(["x", "y"]);
    const results = await addObservations(tdb.db, w, [
      { entityName: "a", contents: ["x", "n1", "n1"] },
      { entityName: "a", contents: ["n1", "n2"] },
    ]);
    expect(results).toEqual([
      { entityName: "a", addedObservations: ["n1"] },
      { entityName: "a", addedObservations: ["n2"] },
    ]);
    expect((await openNodes(tdb.db, "shared", ["a"], ANSWER)).entities[0]!.observations).toEqual(["x", "y", "n1", "n2"]);
  });

  it("stores names and observations up to the limit in any script, and refuses longer ones", async () => {
    const longName = "名".repeat(MAX); // 12 kB of UTF-8: too big for a plain btree key
    const longObs = "관".repeat(MAX);
    expect(await createEntities(tdb.db, w, [{ name: longName, entityType: "長い", observations: [longObs] }])).toHaveLength(1);
    expect(await createEntities(tdb.db, w, [{ name: longName, entityType: "長い", observations: [] }])).toHaveLength(0);
    expect(await addObservations(tdb.db, w, [{ entityName: longName, contents: [longObs, `${"관".repeat(MAX - 1)}x`] }])).toEqual([
      { entityName: longName, addedObservations: [`${"관".repeat(MAX - 1)}x`] },
    ]);
    expect(await createRelations(tdb.db, w, [{ from: longName, to: longName, relationType: "名".repeat(MAX) }])).toHaveLength(1);
    await rejects(createEntities(tdb.db, w, [{ name: "n", entityType: "t", observations: ["o".repeat(MAX + 1)] }]), "invalid", /entities\[0\]\.observations\[0\] is 4097 characters long; the limit is 4096/);
    await rejects(createEntities(tdb.db, w, [{ name: "", entityType: "t", observations: [] }]), "invalid", /entities\[0\]\.name is empty/);
    await rejects(createRelations(tdb.db, w, [{ from: "a", to: "", relationType: "r" }]), "invalid", /relations\[0\]\.to is empty/);
    await rejects(addObservations(tdb.db, w, [{ entityName: "a", contents: ["ok", "nul\u0000"] }]), "invalid", /contents\[1\] contains a NUL/);
    await rejects(createEntities(tdb.db, w, [{ name: "bad\uD800", entityType: "t", observations: [] }]), "invalid", /unpaired UTF-16 surrogate/);
    const many = Array.from({ length: 1001 }, (_, i) => ({ name: `m${i}`, entityType: "t", observations: [] }));
    await rejects(createEntities(tdb.db, w, many), "invalid", /entities has 1001 items; at most 1000/);
    expect((await openNodes(tdb.db, "shared", ["n", "m0"], ANSWER)).entities).toEqual([]);
    await deleteEntities(tdb.db, w, [longName]);
  });

  it("searches name, type and observations case-insensitively in any script, with LIKE characters taken literally", async () => {
    await createEntities(tdb.db, other, [
      { name: "Tokyo Tower", entityType: "Landmark", observations: ["東京タワーは333メートル", "Painted ORANGE"] },
      { name: "남산타워", entityType: "랜드마크", observations: ["서울에 있다"] },
      { name: "100%_real", entityType: "odd", observations: ["back\\slash"] },
      { name: "100 real", entityType: "odd", observations: ["ÉCOLE Normale"] },
    ]);
    const names = async (q: string) => (await searchNodes(tdb.db, "team", q, {}, ANSWER, 10_000)).entities.map((e) => e.name);
    expect(await names("tokyo")).toEqual(["Tokyo Tower"]);
    expect(await names("LANDMARK")).toEqual(["Tokyo Tower"]);
    expect(await names("orange")).toEqual(["Tokyo Tower"]);
    expect(await names("école")).toEqual(["100 real"]);
    expect(await names("東京タワー")).toEqual(["Tokyo Tower"]);
    expect(await names("서울")).toEqual(["남산타워"]);
    expect(await names("랜드")).toEqual(["남산타워"]);
    expect(await names("%_")).toEqual(["100%_real"]);
    expect(await names("%_r")).toEqual(["100%_real"]);
    // "_" is a character, not a wildcard: unescaped it would match "100 real".
    expect(await names("0_r")).toEqual([]);
    expect(await names("\\")).toEqual(["100%_real"]);
    expect(await names("")).toEqual(["a", "Tokyo Tower", "남산타워", "100%_real", "100 real"]);
    expect(await names("nothing like it")).toEqual([]);
  });

  it("pages read_graph and search_nodes with totals, and every relation turns up once paging is done", async () => {
    const s: GraphWriter = { ...w, scope: "paging" };
    await tdb.db.query("update agents set write_scopes = array_append(write_scopes, 'paging') where id = $1", [w.agentId]);
    await createEntities(tdb.db, s, ["e1", "e2", "e3", "e4", "e5"].map((name) => ({ name, entityType: "page-t", observations: [] })));
    await createRelations(tdb.db, s, [
      { from: "e1", to: "e5", relationType: "r" },
      { from: "e3", to: "e4", relationType: "r" },
      { from: "x", to: "y", relationType: "dangling" },
    ]);
    const whole = await readGraph(tdb.db, "paging", {}, ANSWER);
    expect(whole).toMatchObject({ totalEntities: 5, truncated: false, offset: 0, limit: 1000 });
    expect(whole.relations).toHaveLength(3);

    const p1 = await readGraph(tdb.db, "paging", { limit: 2 }, ANSWER);
    expect(p1).toMatchObject({ totalEntities: 5, truncated: true, nextOffset: 2 });
    expect(p1.entities.map((e) => e.name)).toEqual(["e1", "e2"]);
    expect(p1.relations.map((r) => r.to)).toEqual(["e5"]);
    const p2 = await readGraph(tdb.db, "paging", { limit: 2, offset: 2 }, ANSWER);
    expect(p2.entities.map((e) => e.name)).toEqual(["e3", "e4"]);
    expect(p2.relations.map((r) => r.from)).toEqual(["e3"]);
    const p3 = await readGraph(tdb.db, "paging", { limit: 2, offset: 4 }, ANSWER);
    expect(p3).toMatchObject({ truncated: false, totalEntities: 5 });
    expect(p3.entities.map((e) => e.name)).toEqual(["e5"]);
    expect(p3.relations.map((r) => r.relationType)).toEqual(["r", "dangling"]);
    expect((await readGraph(tdb.db, "paging", { offset: 9 }, ANSWER)).entities).toEqual([]);

    const s1 = await searchNodes(tdb.db, "paging", "page-t", { limit: 3, offset: 1 }, ANSWER, 10_000);
    expect(s1).toMatchObject({ totalEntities: 5, truncated: true, nextOffset: 4 });
    expect(s1.entities.map((e) => e.name)).toEqual(["e2", "e3", "e4"]);
    expect((await searchNodes(tdb.db, "paging", "page-t", { offset: 7 }, ANSWER, 10_000)).totalEntities).toBe(5);
  });

  it("deletes cascade to relations by name and are silent about missing things", async () => {
    const s: GraphWriter = { ...w, scope: "paging" };
    expect(await deleteRelations(tdb.db, s, [{ from: "e3", to: "e4", relationType: "r" }, { from: "no", to: "pe", relationType: "r" }])).toMatchObject({ relations: 1 });
    await addObservations(tdb.db, s, [{ entityName: "e1", contents: ["o1", "o2"] }]);
    expect(await deleteObservations(tdb.db, s, [{ entityName: "e1", observations: ["o1", "zz"] }, { entityName: "zz", observations: ["o2"] }])).toMatchObject({ observations: 1 });
    expect(await deleteEntities(tdb.db, s, ["e1", "x", "nobody"])).toEqual({ entities: 1, relations: 2, observations: 1 });
    const g = await readGraph(tdb.db, "paging", {}, ANSWER);
    expect(g.entities.map((e) => e.name)).toEqual(["e2", "e3", "e4", "e5"]);
    expect(g.relations).toEqual([]);
    expect(await countRows("graph_observations where content = 'o2'")).toBe(0);
  });
});
