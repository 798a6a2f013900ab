// Every graph read is bounded (on both backends): relations and observations past
// the answer's character budget are cut, the answer says so, and following its
// pointers (read_relations, read_observations, the next offset) returns every
// item exactly once. A small budget keeps the data small.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { DomainError } from "../../src/errors.js";
import { graphText, pageText } from "../../src/graph/format.js";
import { openNodes, readGraph, readObservations } from "../../src/graph/read.js";
import { readRelations } from "../../src/graph/relations.js";
import { searchNodes } from "../../src/graph/search.js";
import type { Graph, GraphRelation, RelationsRequest } from "../../src/graph/types.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const BUDGET = 20_000;
const key = (r: GraphRelation) => `${r.from}|${r.to}|${r.relationType}`;

describe.each(BACKENDS)("bounded graph answers on %s", (backend) => {
  let tdb: TestDatabase;
  // Every relation of the scope, in creation order, straight from the table.
  const allRelations = async (scope: string) =>
    (
      await tdb.db.query<{ k: string }>("select from_name || '|' || to_name || '|' || relation_type as k from graph_relations where scope = $1 order by id", [scope])
    ).rows.map((r) => r.k);
  const allObservations = async (scope: string, name: string) =>
    (
      await tdb.db.query<{ content: string }>(
        "select o.content from graph_observations o join graph_entities e on e.id = o.entity_id where e.scope = $1 and e.name = $2 order by o.id",
        [scope, name],
      )
    ).rows.map((r) => r.content);

  /** Follows nextRelations until the end; returns the relations of the answer and of every page after it. */
  async function followRelations(scope: string, answer: Graph): Promise<string[]> {
    const seen = answer.relations.map(key);
    let next: RelationsRequest | undefined = answer.nextRelations;
    while (next) {
      const page = await readRelations(tdb.db, scope, next, BUDGET);
      expect(page.offset).toBe(next.offset);
      expect(page.relations.length).toBeGreaterThan(0);
      seen.push(...page.relations.map(key));
      next = page.nextOffset === undefined ? undefined : { ...next, offset: page.nextOffset };
    }
    return seen;
  }

  async function followObservations(scope: string, name: string, shown: string[]): Promise<string[]> {
    const seen = [...shown];
    let offset: number | undefined = shown.length;
    while (offset !== undefined) {
      const page = await readObservations(tdb.db, scope, name, { offset }, BUDGET);
      seen.push(...page.observations);
      expect(page.observationsMeta).toHaveLength(page.observations.length);
      offset = page.nextOffset;
    }
    return seen;
  }

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "bounds-writer", kind: "agent", writeScopes: ["hub", "obs", "pages"] });
    const w = (scope: string) => ({ scope, agentId: agent.id, maxChars: 4096 });
    // One entity with 300 relations to entities that do not exist, and one relation elsewhere.
    await createEntities(tdb.db, w("hub"), [{ name: "Hub", entityType: "hub", observations: [] }]);
    await createRelations(tdb.db, w("hub"), [
      ...Array.from({ length: 300 }, (_, i) => ({ from: "Hub", to: `spoke-${i}-`.padEnd(200, "x"), relationType: "links" })),
      { from: "x", to: "y", relationType: "elsewhere" },
    ]);
    // An entity with far too many observations for one answer, then two small ones.
    const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i} `.padEnd(100, "."));
    await createEntities(tdb.db, w("obs"), [
      { name: "Big", entityType: "t", observations: texts("big", 500) },
      { name: "Small", entityType: "t", observations: texts("small", 2) },
      { name: "Medium", entityType: "t", observations: texts("medium", 50) },
    ]);
    // Two entities and 100 relations between names that are not entities.
    await createEntities(tdb.db, w("pages"), [
      { name: "A", entityType: "t", observations: [] },
      { name: "B", entityType: "t", observations: [] },
    ]);
    await createRelations(tdb.db, w("pages"), [
      { from: "A", to: "B", relationType: "r" },
      ...Array.from({ length: 100 }, (_, i) => ({ from: `ghost-${i}`, to: `ghost-${i}-`.padEnd(150, "g"), relationType: "haunts" })),
    ]);
  });

  it("read_graph of a one-entity graph with 301 relations: cut, marked, and read_relations from nextRelations returns the rest once", async () => {
    const page = await readGraph(tdb.db, "hub", { limit: 1 }, BUDGET);
    expect(page.entities.map((e) => e.name)).toEqual(["Hub"]);
    expect(page).toMatchObject({ truncated: false, relationsTruncated: true, totalRelations: 301, nextRelations: { scope: "hub", offset: page.relations.length } });
    expect(page.nextRelations).not.toHaveProperty("names");
    expect(page.relations.length).toBeGreaterThan(10);
    expect(page.relations.length).toBeLessThan(60);
    const text = pageText("read_graph", page);
    expect(text.length).toBeLessThan(BUDGET * 1.1);
    const parsed = JSON.parse(text) as { note: string; nextRelations: unknown; relations: unknown[] };
    expect(parsed.note).toMatch(/holds \d+ of 301 relations.*read_relations with the arguments in nextRelations/);
    expect(parsed.nextRelations).toEqual(page.nextRelations);
    expect(await followRelations("hub", page)).toEqual(await allRelations("hub"));
  });

  it("search_nodes and open_nodes cut the relations touching Hub the same way, continued by name", async () => {
    const touchingHub = (await allRelations("hub")).filter((k) => k.startsWith("Hub|"));
    const search = await searchNodes(tdb.db, "hub", "Hub", { limit: 1 }, BUDGET, 10_000);
    const open = await openNodes(tdb.db, "hub", ["Hub", "Nobody"], BUDGET);
    for (const answer of [search, open]) {
      expect(answer).toMatchObject({ relationsTruncated: true, totalRelations: 300, nextRelations: { scope: "hub", names: ["Hub"], offset: answer.relations.length } });
      expect(await followRelations("hub", answer)).toEqual(touchingHub);
    }
    expect(graphText(open).length).toBeLessThan(BUDGET * 1.1);
    expect(open.relations[0]).toMatchObject({ createdBy: "bounds-writer" });
  });

  it("open_nodes lists every entity asked for; past the budget their observations are cut and read_observations returns the rest once", async () => {
    const g = await openNodes(tdb.db, "obs", ["Medium", "Small", "Big"], BUDGET);
    expect(g.entities.map((e) => [e.name, e.observationsTruncated, e.totalObservations])).toEqual([
      ["Big", true, 500],
      ["Small", true, 2],
      ["Medium", true, 50],
    ]);
    const [big, small, medium] = g.entities;
    expect(big!.observations.length).toBeGreaterThan(50);
    expect(big!.observations.length).toBeLessThan(100);
    expect(big!.observationsMeta).toHaveLength(big!.observations.length);
    expect(small!.observations).toEqual([]);
    expect(medium!.observations).toEqual([]);
    const text = graphText(g);
    expect(text.length).toBeLessThan(BUDGET * 1.1);
    expect((JSON.parse(text) as { note: string }).note).toMatch(/3 entities show only part of its observations.*read_observations/);
    for (const e of g.entities) expect(await followObservations("obs", e.name, e.observations)).toEqual(await allObservations("obs", e.name));
  });

  it("read_graph and search_nodes end a page before an entity that does not fit; the first one comes cut; paging collects everything once", async () => {
    for (const read of [(offset: number) => readGraph(tdb.db, "obs", { offset }, BUDGET), (offset: number) => searchNodes(tdb.db, "obs", "", { offset }, BUDGET, 10_000)]) {
      const first = await read(0);
      expect(first).toMatchObject({ totalEntities: 3, truncated: true, nextOffset: 1 });
      expect(first.entities.map((e) => [e.name, e.observationsTruncated, e.totalObservations])).toEqual([["Big", true, 500]]);
      const note = (JSON.parse(pageText("read_graph", first)) as { note: string }).note;
      expect(note).toMatch(/entities 1-1 of 3, cut to keep the answer small.*offset 1.*Entity "Big" shows only part/);
      const second = await read(1);
      expect(second).toMatchObject({ totalEntities: 3, truncated: false });
      expect(second.entities.map((e) => e.name)).toEqual(["Small", "Medium"]);
      for (const e of second.entities) {
        expect(e).not.toHaveProperty("observationsTruncated");
        expect(e).not.toHaveProperty("totalObservations");
        expect(e.observations).toEqual(await allObservations("obs", e.name));
      }
      expect(await followObservations("obs", "Big", first.entities[0]!.observations)).toEqual(await allObservations("obs", "Big"));
    }
  });

  it("the last page of read_graph continues with the unattached relations too", async () => {
    const p1 = await readGraph(tdb.db, "pages", { limit: 1 }, BUDGET);
    expect(p1.relations.map(key)).toEqual(["A|B|r"]);
    expect(p1).not.toHaveProperty("relationsTruncated");
    const p2 = await readGraph(tdb.db, "pages", { limit: 1, offset: 1 }, BUDGET);
    expect(p2).toMatchObject({ truncated: false, relationsTruncated: true, totalRelations: 101, nextRelations: { scope: "pages", names: ["B"], unattached: true } });
    expect(await followRelations("pages", p2)).toEqual(await allRelations("pages"));
    // Without names, unattached lists only the relations between non-entities.
    const only = await readRelations(tdb.db, "pages", { unattached: true, limit: 5000 }, 1_000_000);
    expect(only.relations.map(key)).toEqual((await allRelations("pages")).slice(1));
  });

  it("ordinary answers carry none of the extra fields, and read_relations / read_observations check their input", async () => {
    const whole = await readGraph(tdb.db, "pages", {}, 1_000_000);
    expect(Object.keys(whole).sort()).toEqual(["entities", "limit", "offset", "relations", "totalEntities", "truncated"]);
    expect(whole.relations).toHaveLength(101);
    const open = await openNodes(tdb.db, "obs", ["Medium"], 1_000_000);
    expect(Object.keys(open).sort()).toEqual(["entities", "relations"]);
    expect(Object.keys(open.entities[0]!).sort()).toEqual(["createdAt", "createdBy", "entityType", "name", "observations", "observationsMeta"]);
    const limited = await readRelations(tdb.db, "hub", { names: ["Hub"], limit: 7, offset: 3 }, BUDGET);
    expect(limited).toMatchObject({ totalRelations: 300, offset: 3, limit: 7, truncated: true, nextOffset: 10 });
    expect(limited.relations.map(key)).toEqual((await allRelations("hub")).slice(3, 10));
    const error = await readObservations(tdb.db, "obs", "Nobody", {}, BUDGET).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).message).toMatch(/^Entity with name Nobody not found/);
    const tooMany = await readRelations(tdb.db, "hub", { names: Array.from({ length: 1001 }, (_, i) => `n${i}`) }, BUDGET).catch((e: unknown) => e);
    expect((tooMany as DomainError).message).toMatch(/names has 1001 items/);
  });
});
