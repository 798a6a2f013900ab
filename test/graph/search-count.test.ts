// search_nodes counts matches only up to a cap (security review: counting every
// match of a common letter held the embedded database ~750 ms per call). Every
// page must still be exactly the reference's matches in insertion order, and the
// total exact up to the cap, "at least the cap" beyond it. Checked against a
// plain filter over the same data, on both backends, with caps small enough to
// be crossed by each way the statement finds matches (sql/functions/am_graph_search.sql):
// the three lists alone, a list past the cap (names, types, or observations
// that repeat one entity), and the walk over more than one of its steps.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { createAgent } from "../../src/auth/store.js";
import { cursorKey } from "../../src/db/sql/cursor-key.js";
import { readRelations } from "../../src/graph/relations.js";
import { searchNodes } from "../../src/graph/search.js";
import { WALK_CHUNK, WALK_OBSERVATION_CHUNK } from "../support/graph-walk.js";
import { createEntities } from "../../src/graph/store.js";
import type { EntityInput } from "../../src/graph/types.js";
import { openSealedCursor } from "../../src/paging.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";

const ANSWER = 1_000_000;
/** More entities than three steps of the walk. */
const N = 3 * WALK_CHUNK + 17;

function entity(i: number): EntityInput {
  const observations = [`note ${i}`];
  // Every fifth entity has three observations with "zeta": a list of
  // observations reaches its limit long before that many entities match.
  if (i % 5 === 0) observations.push(`zeta one ${i}`, `zeta two ${i}`, `Zeta three ${i}`);
  if (i % 97 === 0) observations.push("rare-kiwi");
  return { name: `item-${i}`, entityType: i % 3 === 0 ? "alpha-type" : "beta", observations };
}
const ENTITIES = Array.from({ length: N }, (_, i) => entity(i));

/** What the reference server matches: name, type or an observation contains the query, case-insensitively. */
function expected(query: string): string[] {
  const q = query.toLowerCase();
  return ENTITIES.filter((e) => [e.name, e.entityType, ...e.observations].some((t) => t.toLowerCase().includes(q))).map((e) => e.name);
}

const QUERIES = ["item", "e", "", "zeta", "alpha", "alpha-type", "rare-kiwi", "i", "m-1", "TEM-2", "zz-none"];
const CAPS = [10, 60, 1000];
const OFFSETS = [0, 7, 55, 130, N - 3, N + 5];
const LIMITS = [5, 40];

describe.each(BACKENDS)("search_nodes with a count cap on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["counted", "noise", "tail"] });
    const w = { scope: "counted", agentId: agent.id, maxChars: 4096 };
    // Interleaved with another scope whose entities all match every query: the
    // walk and the lists must neither count nor show them.
    for (let i = 0; i < N; i += 50) {
      await createEntities(tdb.db, w, ENTITIES.slice(i, i + 50));
      await createEntities(tdb.db, { ...w, scope: "noise" }, Array.from({ length: 30 }, (_, k) => ({
        name: `noise-${i + k} item zeta alpha-type rare-kiwi TEM-2 m-1`, entityType: "alpha-type", observations: ["zeta zeta"],
      })));
    }
  });

  it("ran on the data it was meant for, with the walk's steps the database takes", async () => {
    expect((await tdb.db.query("select am_graph_walk('entities') as e, am_graph_walk('observations') as o")).rows[0]).toEqual({ e: WALK_CHUNK, o: WALK_OBSERVATION_CHUNK });
    expect(expected("item")).toHaveLength(N);
    expect(expected("zeta").length).toBeGreaterThan(60); // past a cap of 60 …
    expect(expected("zeta").length * 3).toBeGreaterThan(expected("zeta").length + 60); // … its observations sooner
    expect(expected("rare-kiwi")).toHaveLength(4);
    expect(expected("zz-none")).toEqual([]);
  });

  it.each(CAPS)("every page is the reference's, the total exact up to a cap of %i", async (cap) => {
    for (const query of QUERIES) {
      const all = expected(query);
      for (const offset of OFFSETS) {
        for (const limit of LIMITS) {
          const label = JSON.stringify({ query, cap, offset, limit });
          const page = await searchNodes(tdb.db, "counted", query, { offset, limit }, ANSWER, cap);
          const names = page.entities.map((e) => e.name);
          expect(names, label).toEqual(all.slice(offset, offset + limit));
          expect(page.totalEntities, label).toBe(Math.min(all.length, cap));
          expect(page.totalEntitiesIsLowerBound, label).toBe(all.length > cap ? true : undefined);
          const more = offset + names.length < all.length;
          expect(page.truncated, label).toBe(more);
          expect(page.nextOffset, label).toBe(more ? offset + names.length : undefined);
        }
      }
    }
  });

  it("pages through every match of a common query, past the cap, in insertion order", async () => {
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await searchNodes(tdb.db, "counted", "item", { offset, limit: 37 }, ANSWER, 10);
      expect(page).toMatchObject({ totalEntities: 10, totalEntitiesIsLowerBound: true });
      seen.push(...page.entities.map((e) => e.name));
      offset = page.nextOffset;
    }
    expect(seen).toEqual(expected("item"));
  });

  // The walk tests at most scanMax entities per call (security review: matches
  // at the end of a large scope, one entity with more than the cap of matching
  // observations, or a query of one or two letters made one call test every
  // entity of the scope). Pages cut there resume by cursor, and following the
  // cursors still gives exactly the reference's matches, in order, once each.
  const SCANS = [WALK_CHUNK, 2 * WALK_CHUNK, 10_000];
  it.each(SCANS)("following nextCursor from any page gives every match once, in order, testing at most %i entities a call", async (scanMax) => {
    for (const query of QUERIES) {
      const all = expected(query);
      for (const cap of [10, 1000]) {
        for (const offset of [0, 55, N - 3]) {
          const label = JSON.stringify({ query, cap, offset, scanMax });
          let page = await searchNodes(tdb.db, "counted", query, { offset, limit: 40 }, ANSWER, cap, scanMax);
          const seen = page.entities.map((e) => e.name);
          // The first page is the reference's from its offset: whole, or cut short where the walk stopped.
          expect(seen, label).toEqual(all.slice(offset, offset + seen.length));
          if (!page.scanCut) expect(seen.length, label).toBe(Math.min(40, Math.max(0, all.length - offset)));
          let calls = 1;
          while (page.nextCursor !== undefined) {
            expect(page.truncated, label).toBe(true);
            page = await searchNodes(tdb.db, "counted", query, { cursor: page.nextCursor, limit: 40 }, ANSWER, cap, scanMax);
            // A page after a cursor still knows its place among all matches.
            expect(page.entities.map((e) => e.name), label).toEqual(all.slice(page.offset, page.offset + page.entities.length));
            expect(page.offset, label).toBe(offset + seen.length);
            seen.push(...page.entities.map((e) => e.name));
            expect(calls++, label).toBeLessThan(N);
          }
          expect(page.truncated, label).toBe(false);
          expect(seen, label).toEqual(all.slice(offset));
          // An exact total is the true one; "at least" is never more than the truth.
          if (page.totalEntitiesIsLowerBound) expect(page.totalEntities, label).toBeLessThanOrEqual(all.length);
          else expect(page.totalEntities, label).toBe(all.length);
        }
      }
    }
  });

  it("stops a walk at its bound before the matches at the end of the scope, and resumes it by cursor", async () => {
    // 250 entities that do not match, then 15 that do: the scope is larger
    // than one call's walk (100 entities), so it is walked from its first
    // entity, and the walk's first 100 found nothing to count.
    const agentId = (await tdb.db.query<{ id: number }>("select id from agents where name = 'loader'")).rows[0]!.id;
    const w = { scope: "tail", agentId, maxChars: 4096 };
    await createEntities(tdb.db, w, Array.from({ length: 250 }, (_, i) => ({ name: `filler-${i}`, entityType: "plain", observations: ["nothing here"] })));
    const tail = Array.from({ length: 15 }, (_, i) => `late-match-${i}`);
    await createEntities(tdb.db, w, tail.map((name) => ({ name, entityType: "plain", observations: [] })));

    const first = await searchNodes(tdb.db, "tail", "late-match", { limit: 5 }, ANSWER, 10, WALK_CHUNK, true);
    expect(first).toMatchObject({ entities: [], truncated: true, scanCut: true, totalEntities: 0, totalEntitiesIsLowerBound: true });
    expect(first.nextOffset).toBeUndefined();
    const names: string[] = [];
    let page = first;
    let calls = 1;
    while (page.nextCursor) {
      page = await searchNodes(tdb.db, "tail", "late-match", { cursor: page.nextCursor, limit: 5 }, ANSWER, 10, WALK_CHUNK, true);
      names.push(...page.entities.map((e) => e.name));
      calls++;
    }
    expect(names).toEqual(tail);
    // Steps of 100 through 265 entities, then pages of 5: no call went further than its bound.
    expect(calls).toBeGreaterThanOrEqual(4);
    // Without the bound (one call may test every entity) the first page holds the matches.
    expect((await searchNodes(tdb.db, "tail", "late-match", { limit: 5 }, ANSWER, 10, 10_000, true)).entities.map((e) => e.name)).toEqual(tail.slice(0, 5));
  });

  it("walks a one- or two-letter query in bounded steps, and counts it exactly once it has seen the whole scope", async () => {
    const bounded = await searchNodes(tdb.db, "counted", "zq", {}, ANSWER, 1000, WALK_CHUNK);
    expect(bounded).toMatchObject({ entities: [], truncated: true, scanCut: true, totalEntities: 0, totalEntitiesIsLowerBound: true });
    const whole = await searchNodes(tdb.db, "counted", "zq", {}, ANSWER, 1000, 10_000);
    expect(whole).toMatchObject({ entities: [], truncated: false, totalEntities: 0 });
    expect(whole.totalEntitiesIsLowerBound).toBeUndefined();
    const e = await searchNodes(tdb.db, "counted", "e", { limit: 1000 }, ANSWER, 1000, 10_000);
    expect(e.totalEntities).toBe(expected("e").length);
    expect(e.totalEntitiesIsLowerBound).toBeUndefined();
  });

  it("tests no more entities than the bound, even when the bound is not a whole number of steps", async () => {
    // 250 fillers then 15 matches in scope "tail" (the test above): a bound of
    // 150 entities is one step of 100, so the first call tests fillers only.
    const page = await searchNodes(tdb.db, "tail", "late-match", { limit: 5 }, ANSWER, 10, 150, true);
    expect(page).toMatchObject({ entities: [], scanCut: true });
    const two = await searchNodes(tdb.db, "tail", "late-match", { cursor: page.nextCursor, limit: 5 }, ANSWER, 10, 150, true);
    expect(two).toMatchObject({ entities: [], scanCut: true, offset: 0 });
  });

  it("refuses a cursor with an offset, and a cursor it did not hand out", async () => {
    const page = await searchNodes(tdb.db, "counted", "item", { limit: 5 }, ANSWER, 10, WALK_CHUNK);
    await expect(searchNodes(tdb.db, "counted", "item", { cursor: page.nextCursor, offset: 5 }, ANSWER, 10)).rejects.toThrow(/either offset or cursor/);
    await expect(searchNodes(tdb.db, "counted", "item", { cursor: "bm90LWEtY3Vyc29y" }, ANSWER, 10)).rejects.toThrow(/cursor is not valid/);
    await expect(searchNodes(tdb.db, "counted", "item", { cursor: Buffer.from(JSON.stringify({ after: -1, skip: 0 })).toString("base64url") }, ANSWER, 10)).rejects.toThrow(/cursor is not valid/);
  });

  it("seals its cursors: entity ids (a sequence every scope shares) are not readable, an altered or unsealed cursor is refused", async () => {
    const page = await searchNodes(tdb.db, "counted", "item", { limit: 5 }, ANSWER, 10, WALK_CHUNK);
    const raw = Buffer.from(page.nextCursor!, "base64url").toString("utf8");
    expect(raw).not.toMatch(/after|seen|skip/);
    const id = (await tdb.db.query<{ id: string }>("select max(id)::text as id from graph_entities")).rows[0]!.id;
    expect(raw).not.toContain(id);
    const altered = page.nextCursor!.slice(0, 20) + (page.nextCursor![20] === "A" ? "B" : "A") + page.nextCursor!.slice(21);
    await expect(searchNodes(tdb.db, "counted", "item", { cursor: altered }, ANSWER, 10)).rejects.toThrow(/^cursor is not valid/);
    // The old, unsealed form of a cursor that was valid then.
    const old = Buffer.from(JSON.stringify({ after: 1, skip: 0, seen: 0 })).toString("base64url");
    await expect(searchNodes(tdb.db, "counted", "item", { cursor: old }, ANSWER, 10)).rejects.toThrow(/^cursor is not valid/);
    // One list's cursor does not open another's.
    await expect(readRelations(tdb.db, "counted", { cursor: page.nextCursor! }, ANSWER)).rejects.toThrow(/^cursor is not valid/);
  });
});

// The walk bounds observations too (security review follow-up: each entity
// it tested had all its observations tested, so one entity with 50,000 of them
// made a short query of its scope test 50,000 observations in one call). A
// step tests at most WALK_OBSERVATION_CHUNK observations and stops inside an
// entity when they run out; the cursor holds that observation's place. What a
// call tested is read from where it started and where its cursor says it
// stopped, counted in the database: no timing.
describe.each(BACKENDS)("search_nodes over entities with many observations on %s", (backend) => {
  let tdb: TestDatabase;
  /** More observations than a call walking one step tests: the walk must stop inside. */
  // More observations than a step of the walk tests, within what one entity may carry.
  const HEAVY = 4 * WALK_OBSERVATION_CHUNK + 37;
  const filler = (n: number, tag: string) => Array.from({ length: n }, (_, j) => `filler ${tag} ${j}`);
  const HEAVY_ENTITIES: EntityInput[] = [
    ...Array.from({ length: 5 }, (_, i) => ({ name: `light-${i}`, entityType: "plain", observations: [`plain ${i}`, `plain again ${i}`] })),
    // Its only match is its last observation.
    { name: "heavy-a", entityType: "box", observations: [...filler(HEAVY, "a"), "the needle at the end"] },
    // Matches by name: its observations need no test.
    { name: "needle-named", entityType: "box", observations: filler(HEAVY, "b") },
    ...Array.from({ length: 10 }, (_, i) => ({ name: `after-${i}`, entityType: "plain", observations: i % 2 === 0 ? [`a needle ${i}`] : [`hay ${i}`] })),
    { name: "heavy-c", entityType: "box", observations: filler(HEAVY + WALK_OBSERVATION_CHUNK / 2, "c") },
    { name: "tail-needle", entityType: "plain", observations: [] },
  ];
  const expectedHeavy = (query: string) =>
    HEAVY_ENTITIES.filter((e) => [e.name, e.entityType, ...e.observations].some((t) => t.toLowerCase().includes(query.toLowerCase()))).map((e) => e.name);
  // The cursors are sealed: the test opens them with the store's key to see where a walk stopped.
  const cursorOf = async (cursor: string) =>
    openSealedCursor(await cursorKey(tdb.db), cursor, z.object({ after: z.number(), obs: z.number().optional() })) as { after: number; obs?: number };
  /** Entities and observations of scope "heavy" in the walk's order after `from` up to `to` (an entity's place: its whole self, or up to an observation). */
  async function testedBetween(from: { after: number; obs?: number }, to: { after: number; obs?: number }) {
    const r = await tdb.db.query<{ entities: number; observations: number }>(
      `select (select count(*) from graph_entities e where e.scope = 'heavy' and e.id > $1::bigint and e.id <= $3::bigint)::int as entities,
         (select count(*) from graph_observations o where o.scope = 'heavy'
            and (o.entity_id, o.id) > ($1::bigint, coalesce($2::bigint, 9223372036854775807))
            and (o.entity_id, o.id) <= ($3::bigint, coalesce($4::bigint, 9223372036854775807)))::int as observations`,
      [from.after, from.obs ?? null, to.after, to.obs ?? null],
    );
    return r.rows[0]!;
  }

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["heavy", "noise"] });
    const w = { scope: "heavy", agentId: agent.id, maxChars: 4096 };
    for (const e of HEAVY_ENTITIES) {
      await createEntities(tdb.db, w, [e]);
      // Another scope interleaved, every one of its rows matching: never counted, never shown.
      await createEntities(tdb.db, { ...w, scope: "noise" }, [{ name: `noise ${e.name} needle zq`, entityType: "box", observations: ["needle zq"] }]);
    }
  });

  it("ran on the data it was meant for", () => {
    expect(expectedHeavy("needle")).toEqual(["heavy-a", "needle-named", "after-0", "after-2", "after-4", "after-6", "after-8", "tail-needle"]);
    expect(expectedHeavy("zq")).toEqual([]);
  });

  it("stops inside an entity whose observations outnumber the step's, having tested exactly that many", async () => {
    // One step: the light entities' ten observations, then heavy-a's until the step's 200 are spent.
    const page = await searchNodes(tdb.db, "heavy", "zq", {}, ANSWER, 1000, WALK_CHUNK);
    expect(page).toMatchObject({ entities: [], scanCut: true, truncated: true, totalEntitiesIsLowerBound: true });
    const at = await cursorOf(page.nextCursor!);
    const heavyA = (await tdb.db.query<{ id: number }>("select id::int as id from graph_entities where scope = 'heavy' and name = 'heavy-a'")).rows[0]!.id;
    expect(at.after).toBe(heavyA);
    expect(at.obs).toBeGreaterThan(0);
    expect(await testedBetween({ after: 0 }, at)).toEqual({ entities: 6, observations: WALK_OBSERVATION_CHUNK });
  });

  it("a short query that matches nothing tests a bounded share per call, and its cursors reach the end", async () => {
    const total = await testedBetween({ after: 0 }, { after: 9_007_199_254_740_991 });
    let page = await searchNodes(tdb.db, "heavy", "zq", {}, ANSWER, 1000, 2 * WALK_CHUNK);
    let from: { after: number; obs?: number } = { after: 0 };
    let calls = 1;
    while (page.nextCursor !== undefined) {
      expect(page).toMatchObject({ entities: [], scanCut: true });
      const to = await cursorOf(page.nextCursor);
      const tested = await testedBetween(from, to);
      // Two steps a call: at most 200 entities and 400 observations, and something each time.
      expect(tested.observations).toBeLessThanOrEqual(2 * WALK_OBSERVATION_CHUNK);
      expect(tested.entities).toBeLessThanOrEqual(2 * WALK_CHUNK);
      expect(tested.observations + tested.entities).toBeGreaterThan(0);
      from = to;
      page = await searchNodes(tdb.db, "heavy", "zq", { cursor: page.nextCursor }, ANSWER, 1000, 2 * WALK_CHUNK);
      calls++;
    }
    expect(page).toMatchObject({ entities: [], truncated: false });
    // Every observation of the scope was tested once on the way, 400 a call at most.
    expect(calls).toBeGreaterThanOrEqual(Math.ceil(total.observations / (2 * WALK_OBSERVATION_CHUNK)));
  });

  const SCANS = [WALK_CHUNK, 3 * WALK_CHUNK, 10_000];
  it.each(SCANS)("following nextCursor gives every match once, in order, the last observation of a large entity included (bound %i)", async (scanMax) => {
    for (const query of ["needle", "ne", "zq", "e", "", "end", "filler"]) {
      const all = expectedHeavy(query);
      for (const cap of [1, 1000]) {
        for (const limit of [1, 3, 40]) {
          const label = JSON.stringify({ query, cap, limit, scanMax });
          let page = await searchNodes(tdb.db, "heavy", query, { limit }, ANSWER, cap, scanMax);
          const seen = page.entities.map((e) => e.name);
          let calls = 1;
          while (page.nextCursor !== undefined) {
            page = await searchNodes(tdb.db, "heavy", query, { cursor: page.nextCursor, limit }, ANSWER, cap, scanMax);
            expect(page.entities.map((e) => e.name), label).toEqual(all.slice(page.offset, page.offset + page.entities.length));
            seen.push(...page.entities.map((e) => e.name));
            expect(calls++, label).toBeLessThan(200);
          }
          expect(seen, label).toEqual(all);
          if (page.totalEntitiesIsLowerBound) expect(page.totalEntities, label).toBeLessThanOrEqual(all.length);
          else expect(page.totalEntities, label).toBe(all.length);
        }
      }
    }
  });

  it("shows a matching entity's observations in insertion order, however many it has", async () => {
    const page = await searchNodes(tdb.db, "heavy", "needle-named", {}, 5_000, 500);
    expect(page.entities.map((e) => e.name)).toEqual(["needle-named"]);
    const [entity] = page.entities;
    expect(entity!.observations.slice(0, 3)).toEqual(["filler b 0", "filler b 1", "filler b 2"]);
    // Exact whatever the count cap: the count is kept as rows are written.
    expect(entity).toMatchObject({ observationsTruncated: true, totalObservations: HEAVY });
  });
});

// What an agent sees: the cap is the service's GRAPH_SEARCH_COUNT_MAX.
describe("search_nodes over HTTP with GRAPH_SEARCH_COUNT_MAX=20", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db, {}, (c) => (c.limits.graphSearchCountMax = 20));
    client = await connectClient(service, (await addAgent(tdb.db, "searcher")).token);
    await callOk(client, "create_entities", { entities: ENTITIES.slice(0, 150) });
  });

  it("answers a common query with the cap as an honest lower bound, in the text too", async () => {
    const result = (await client.callTool({ name: "search_nodes", arguments: { query: "item", limit: 30 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ totalEntities: 20, totalEntitiesIsLowerBound: true, truncated: true, nextOffset: 30, offset: 0, limit: 30 });
    const text = JSON.parse(textOf(result)) as { note: string; totalEntities: number; totalEntitiesIsLowerBound: boolean };
    expect(text).toMatchObject({ totalEntities: 20, totalEntitiesIsLowerBound: true });
    expect(text.note).toMatch(/entities 1-30 of at least 30, cut at limit 30/);
  });

  it("keeps exact totals, and the reference's shape, below the cap", async () => {
    const result = (await client.callTool({ name: "search_nodes", arguments: { query: "rare-kiwi" } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ totalEntities: 2, truncated: false });
    expect(result.structuredContent).not.toHaveProperty("totalEntitiesIsLowerBound");
    expect(Object.keys(JSON.parse(textOf(result)) as object)).toEqual(["entities", "relations"]);
  });

  it("describes the cap to the agent", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "search_nodes")!;
    expect(tool.description).toMatch(/exactly up to a cap/);
    expect(JSON.stringify(tool.outputSchema)).toMatch(/totalEntitiesIsLowerBound/);
  });
});

// What an agent sees when a walk stops at GRAPH_SEARCH_SCAN_MAX: a short page
// that says so, and a cursor that goes on.
describe("search_nodes over HTTP with GRAPH_SEARCH_SCAN_MAX=100", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db, {}, (c) => (c.limits.graphSearchScanMax = 100));
    client = await connectClient(service, (await addAgent(tdb.db, "walker")).token);
    await callOk(client, "create_entities", { entities: [...ENTITIES.slice(0, 150), { name: "tail-x9", entityType: "thing", observations: [] }] });
  });

  it("answers a two-letter query over more entities than the bound with a short page, a note and a cursor, then the rest", async () => {
    const first = (await client.callTool({ name: "search_nodes", arguments: { query: "x9" } })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    const s = first.structuredContent as { entities: unknown[]; scanCut?: boolean; truncated: boolean; nextCursor?: string; nextOffset?: number };
    expect(s).toMatchObject({ entities: [], scanCut: true, truncated: true, totalEntitiesIsLowerBound: true });
    expect(s.nextOffset).toBeUndefined();
    const text = JSON.parse(textOf(first)) as { note: string; nextCursor: string };
    expect(text.nextCursor).toBe(s.nextCursor);
    expect(text.note).toMatch(/stopped after testing its share of the scope's entities/);
    expect(text.note).toContain(`cursor ${JSON.stringify(s.nextCursor)}`);

    const rest = (await client.callTool({ name: "search_nodes", arguments: { query: "x9", cursor: s.nextCursor } })) as CallToolResult;
    expect(rest.structuredContent).toMatchObject({ entities: [{ name: "tail-x9" }], truncated: false, offset: 0, totalEntities: 1 });
    expect((JSON.parse(textOf(rest)) as { entities: Array<{ name: string }> }).entities.map((e) => e.name)).toEqual(["tail-x9"]);
  });

  it("refuses a cursor together with an offset, saying what to pass", async () => {
    const first = (await client.callTool({ name: "search_nodes", arguments: { query: "x9" } })) as CallToolResult;
    const cursor = (first.structuredContent as { nextCursor: string }).nextCursor;
    const both = (await client.callTool({ name: "search_nodes", arguments: { query: "x9", cursor, offset: 3 } })) as CallToolResult;
    expect(both.isError).toBe(true);
    expect(textOf(both)).toMatch(/either offset or cursor/);
  });

  it("offers the cursor in the tool's input and output", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "search_nodes")!;
    expect(Object.keys(tool.inputSchema.properties ?? {})).toContain("cursor");
    expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(expect.arrayContaining(["nextCursor", "scanCut"]));
    expect(tool.description).toMatch(/cursor = nextCursor/);
  });
});
