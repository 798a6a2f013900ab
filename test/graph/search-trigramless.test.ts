// A query of three or more characters with no run of three letters or digits
// ("---", "...", "a.b", "x-o") gives pg_trgm no trigram to look up, or only
// padded ones ("  o": every word that starts with o). The lists then test the
// whole scope's names, types and observations in one call, past
// GRAPH_SEARCH_SCAN_MAX (review of 270c975: "---" over 50,000 entities 80 ms on
// Postgres, 172 ms embedded, against 23 / 44 ms for the bounded walk of "zq").
// Such a query must be walked like one of one or two characters: bounded per
// call, resumed by cursor, every match once and in order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { searchNodes } from "../../src/graph/search.js";
import { WALK_CHUNK } from "../support/graph-walk.js";
import { createEntities } from "../../src/graph/store.js";
import type { EntityInput } from "../../src/graph/types.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const ENTITIES: EntityInput[] = [
  ...Array.from({ length: 3 * WALK_CHUNK + 7 }, (_, i) => ({ name: `filler-${i}`, entityType: "thing", observations: [`of ordinary text ${i}`] })),
  { name: "dash---dash", entityType: "thing", observations: [] },
  { name: "late", entityType: "thing", observations: ["a.b at the end", "x-o too"] },
  { name: "dots...", entityType: "thing", observations: ["a.b"] },
];
const expected = (q: string) =>
  ENTITIES.filter((e) => [e.name, e.entityType, ...e.observations].some((t) => t.toLowerCase().includes(q.toLowerCase()))).map((e) => e.name);

describe.each(BACKENDS)("search_nodes for a query without a trigram of its own on %s", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["s"] });
    await createEntities(tdb.db, { scope: "s", agentId: agent.id, maxChars: 4096 }, ENTITIES);
  });
  afterAll(async () => tdb?.drop());

  it.each(["---", "...", "a.b", "x-o", "%%%", "   "])("%j is walked in bounded steps and resumed by cursor", async (query) => {
    const first = await searchNodes(tdb.db, "s", query, { limit: 10 }, 1_000_000, 1000, WALK_CHUNK);
    // The first call tested at most WALK_CHUNK entities: the matches lie past them.
    expect(first).toMatchObject({ entities: [], truncated: true, scanCut: true, totalEntitiesIsLowerBound: true });
    const seen: string[] = [];
    let page = first;
    while (page.nextCursor !== undefined) {
      page = await searchNodes(tdb.db, "s", query, { cursor: page.nextCursor, limit: 10 }, 1_000_000, 1000, WALK_CHUNK);
      seen.push(...page.entities.map((e) => e.name));
    }
    expect(seen).toEqual(expected(query));
    // Unbounded, one call answers exactly.
    const whole = await searchNodes(tdb.db, "s", query, { limit: 10 }, 1_000_000, 1000, 10_000);
    expect(whole.entities.map((e) => e.name)).toEqual(expected(query));
    expect(whole.totalEntities).toBe(expected(query).length);
    expect(whole.totalEntitiesIsLowerBound).toBeUndefined();
  });

  it("still looks a query with three letters in a row up in the indexes", async () => {
    // (In a scope no larger than one call's walk: a larger one is walked whatever the query.)
    const page = await searchNodes(tdb.db, "s", "dash---", { limit: 10 }, 1_000_000, 1000, 4 * WALK_CHUNK);
    expect(page.entities.map((e) => e.name)).toEqual(["dash---dash"]);
    expect(page.scanCut).toBeUndefined();
    expect(page.totalEntitiesIsLowerBound).toBeUndefined();
  });
});
