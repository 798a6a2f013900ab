// search_nodes' pages, drawn at random (a fixed seed): queries, count caps,
// walk bounds (GRAPH_SEARCH_SCAN_MAX), answer budgets small enough to cut pages
// by their text, limits and first offsets. From any first page, following
// nextCursor must give exactly the reference's matches in insertion order, each
// once, and end; every page must say where it lies among the matches; totals
// must be exact unless flagged "at least", and then never above the truth; a
// nextOffset must lead to the right page. (From the review of the bounded walk;
// entities of several hundred observations since the walk also bounds those.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { searchNodes } from "../../src/graph/search.js";
import { createEntities } from "../../src/graph/store.js";
import type { EntityInput } from "../../src/graph/types.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T,>(a: T[]) => a[Math.floor(rnd() * a.length)]!;

const N = 437;
function entity(i: number): EntityInput {
  const obs: string[] = [];
  const k = Math.floor(rnd() * 4);
  for (let j = 0; j < k; j++) obs.push(pick(["plain", "zeta mark", "ab", "long ".repeat(1 + Math.floor(rnd() * 200)), "qx", "Zeta"]) + ` ${i}-${j}`);
  if (rnd() < 0.05) for (let j = 0; j < 30; j++) obs.push(`zeta burst ${j}`);
  // Entities with more observations than a step of the walk tests (200): the
  // walk stops inside them and the cursor resumes there; some match only at their last.
  if (rnd() < 0.03) {
    for (let j = 0; j < 250 + Math.floor(rnd() * 400); j++) obs.push(`pad ${j}`);
    if (rnd() < 0.5) obs.push("zeta end");
  }
  return { name: `${pick(["item", "node", "thing"])}-${i}`, entityType: pick(["alpha", "beta", "zeta-type"]), observations: obs };
}
const ENTITIES = Array.from({ length: N }, (_, i) => entity(i));
const expected = (q: string) =>
  ENTITIES.filter((e) => [e.name, e.entityType, ...e.observations].some((t) => t.toLowerCase().includes(q.toLowerCase()))).map((e) => e.name);

const QUERIES = ["zeta", "item", "e", "qx", "", "ab", "long", "alpha", "burst", "zz-none", "node-4", "-1", "e-1", "s 1", "..."];

describe.each(BACKENDS)("search_nodes pages drawn at random on %s", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["s", "other"] });
    for (let i = 0; i < N; i += 40) {
      await createEntities(tdb.db, { scope: "s", agentId: agent.id, maxChars: 4096 }, ENTITIES.slice(i, i + 40));
      await createEntities(tdb.db, { scope: "other", agentId: agent.id, maxChars: 4096 }, [{ name: `other-${i} zeta item e qx ab long alpha burst node-4 -1`, entityType: "x", observations: [] }]);
    }
  });
  afterAll(async () => tdb?.drop());

  it("ran on entities of more observations than one step of the walk tests", () => {
    expect(ENTITIES.filter((e) => e.observations.length > 200).length).toBeGreaterThanOrEqual(5);
    expect(ENTITIES.filter((e) => e.observations.at(-1) === "zeta end").length).toBeGreaterThanOrEqual(2);
  });

  it("follow their cursors to exactly every match, each page in its place", async () => {
    const failures: string[] = [];
    for (let trial = 0; trial < 80; trial++) {
      const query = pick(QUERIES);
      const cap = pick([10, 30, 1000]);
      const scanMax = pick([100, 150, 200, 300, 10000]);
      const maxChars = pick([1000, 3000, 20000, 1_000_000]);
      const limit = pick([1, 3, 17, 50]);
      const all = expected(query);
      const offset = pick([0, 0, 5, 40, Math.max(0, all.length - 2), all.length + 3]);
      const label = JSON.stringify({ query, cap, scanMax, maxChars, limit, offset });
      let page = await searchNodes(tdb.db, "s", query, { offset, limit }, maxChars, cap, scanMax);
      const seen = page.entities.map((e) => e.name);
      const check = (p: typeof page, first: boolean) => {
        if (p.totalEntitiesIsLowerBound) { if (p.totalEntities > all.length) failures.push(`${label} total ${p.totalEntities} > ${all.length}`); }
        else if (p.totalEntities !== all.length) failures.push(`${label} exact total ${p.totalEntities} != ${all.length} first=${first}`);
        if (p.totalEntities > cap) failures.push(`${label} total over cap`);
        if (p.truncated !== (p.nextCursor !== undefined)) failures.push(`${label} truncated/cursor mismatch`);
      };
      check(page, true);
      // nextOffset, when given, must agree with the cursor
      if (page.nextOffset !== undefined) {
        const byOffset = await searchNodes(tdb.db, "s", query, { offset: page.nextOffset, limit }, maxChars, cap, 1_000_000);
        const want = all.slice(page.nextOffset, page.nextOffset + byOffset.entities.length);
        if (JSON.stringify(byOffset.entities.map((e) => e.name)) !== JSON.stringify(want)) failures.push(`${label} nextOffset page wrong`);
      }
      let calls = 0;
      while (page.nextCursor !== undefined) {
        page = await searchNodes(tdb.db, "s", query, { cursor: page.nextCursor, limit }, maxChars, cap, scanMax);
        const names = page.entities.map((e) => e.name);
        if (page.offset !== offset + seen.length) failures.push(`${label} cursor page at ${page.offset}, expected ${offset + seen.length}`);
        if (JSON.stringify(names) !== JSON.stringify(all.slice(page.offset, page.offset + names.length))) failures.push(`${label} cursor page not the matches at its offset`);
        seen.push(...names);
        check(page, false);
        if (++calls > 5000) { failures.push(`${label} no end`); break; }
      }
      if (JSON.stringify(seen) !== JSON.stringify(all.slice(offset))) failures.push(`${label} seen ${seen.length} vs ${all.slice(offset).length}: ${JSON.stringify(seen.slice(0, 5))} vs ${JSON.stringify(all.slice(offset, offset + 5))}`);
    }
    expect(failures).toEqual([]);
  });
});
