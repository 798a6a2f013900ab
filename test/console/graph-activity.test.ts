// Graph pages (search, entity with its neighbourhood as SVG) and the activity
// feed, each in readable scopes only.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promoteFact } from "../../src/facts/review/promote.js";
import { addObservations, createEntities, createRelations, deleteEntities, deleteObservations, deleteRelations } from "../../src/graph/store.js";
import { claimAndRecord } from "../ledger/support.js";
import { layoutNeighbourhood } from "../../src/console/views/neighbourhood.js";
import { addAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, draft, signIn, startConsoleApp, type SignedIn } from "./support.js";

describe("console graph and activity pages", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let who: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db);
    const alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    const root = await addAgent(t.db, "root", { kind: "human", scopes: ["*"] });
    const mapper = await addAgent(t.db, "mapper", { scopes: ["shared", "secret"] });
    const m = await callerOf(t.db, mapper.token);
    const shared = { scope: "shared", agentId: m.agentId, maxChars: 4096 };
    await createEntities(t.db, shared, [
      { name: "agent-memory", entityType: "project", observations: ["MCP memory service", "<script>alert(1)</script>"] },
      { name: "Postgres", entityType: "database", observations: ["version 15"] },
      { name: "PGlite", entityType: "database", observations: [] },
      { name: "pg_trgm", entityType: "extension", observations: [] },
    ]);
    await createRelations(t.db, shared, [
      { from: "agent-memory", to: "Postgres", relationType: "stores data in" },
      { from: "PGlite", to: "agent-memory", relationType: "embedded in" },
      { from: "Postgres", to: "pg_trgm", relationType: "uses" },
    ]);
    await addObservations(t.db, shared, [{ entityName: "agent-memory", contents: Array.from({ length: 60 }, (_, i) => `note ${i}`) }]);
    await createEntities(t.db, { ...shared, scope: "secret" }, [{ name: "launch-plan", entityType: "plan", observations: ["hidden"] }]);
    await draft(t.db, m, "secret-fact", "secret");
    const f = await draft(t.db, m, "shared-fact", "shared");
    await promoteFact(t.db, await callerOf(t.db, root.token), { name: f.fact.name, scope: "shared", to: "confirmed", reason: "checked" });
    await claimAndRecord(t.db, m, { action: "deploy_api", target: "v2", evidence: "https://ci.example/2" });
    who = await signIn(app.base, alice.token);
  });
  afterAll(async () => {
    await app?.close();
  });

  const get = (path: string) => request(app.base).get(path).set("Cookie", who.cookie);

  it("searches entities in a readable scope and refuses an unreadable one", async () => {
    const page = await get("/console/graph?scope=shared&q=postgres");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Postgres");
    const secret = await get("/console/graph?scope=secret");
    expect(secret.status).toBe(403);
    expect(secret.text).not.toContain("launch-plan");
    expect((await get("/console/graph/secret/launch-plan")).status).toBe(403);
  });

  it("pages a search by its cursor: the next page's link goes on where the first ended", async () => {
    const m = await callerOf(t.db, (await addAgent(t.db, "bulk-writer", { scopes: ["shared"] })).token);
    const names = Array.from({ length: 55 }, (_, i) => `bulkitem-${String(i).padStart(3, "0")}`);
    await createEntities(t.db, { scope: "shared", agentId: m.agentId, maxChars: 4096 }, names.map((name) => ({ name, entityType: "bulk", observations: [] })));
    const first = await get("/console/graph?scope=shared&q=bulkitem");
    expect(first.status).toBe(200);
    expect(first.text).toContain("bulkitem-049");
    expect(first.text).not.toContain("bulkitem-050");
    const href = /href="(\/console\/graph\?[^"]*cursor=[^"]+)"/.exec(first.text)?.[1];
    expect(href).toBeDefined();
    const next = await get(href!.replace(/&amp;/g, "&"));
    expect(next.status).toBe(200);
    expect(next.text).toContain("bulkitem-054");
    expect(next.text).not.toContain("bulkitem-049");
  });

  it("says when a search stopped at its walk's bound, and its next page goes on from there", async () => {
    const small = await startConsoleApp(t.db, {}, (c) => (c.limits.graphSearchScanMax = 100));
    try {
      // Its own scope: the activity feed below shows alice's scopes only.
      const m = await callerOf(t.db, (await addAgent(t.db, "walk-writer", { scopes: ["walk"] })).token);
      await createEntities(t.db, { scope: "walk", agentId: m.agentId, maxChars: 4096 }, [
        ...Array.from({ length: 120 }, (_, i) => ({ name: `walkfill-${i}`, entityType: "bulk", observations: [] })),
        { name: "walk-target-zq", entityType: "bulk", observations: [] },
      ]);
      const bob = await addAgent(t.db, "bob-walker", { kind: "human", scopes: ["walk"] });
      const session = await signIn(small.base, bob.token);
      const first = await request(small.base).get("/console/graph?scope=walk&q=zq").set("Cookie", session.cookie);
      expect(first.status).toBe(200);
      expect(first.text).toContain("stopped after testing its share of this scope");
      expect(first.text).not.toContain("walk-target-zq");
      let page = first;
      for (let i = 0; i < 5 && !page.text.includes("walk-target-zq"); i++) {
        const href = /href="(\/console\/graph\?[^"]*cursor=[^"]+)"/.exec(page.text)?.[1];
        expect(href).toBeDefined();
        page = await request(small.base).get(href!.replace(/&amp;/g, "&")).set("Cookie", session.cookie);
      }
      expect(page.text).toContain("walk-target-zq");
    } finally {
      await small.close();
    }
  });

  it("shows an entity with paged observations, relations both ways, and a two-hop SVG without script", async () => {
    const page = await get("/console/graph/shared/agent-memory");
    expect(page.status).toBe(200);
    expect(page.text).toContain("<svg");
    expect(page.text).toContain("pg_trgm"); // two hops away
    expect(page.text).toContain("stores data in");
    expect(page.text).toContain("embedded in");
    expect(page.text).toContain("&lt;script>alert(1)&lt;/script>");
    expect(page.text).toContain("Observations (62)");
    expect(page.text).toContain("?offset=50");
    const more = await get("/console/graph/shared/agent-memory?offset=50");
    expect(more.text).toContain("note 59");
    expect((await get("/console/graph/shared/no-such-entity")).status).toBe(404);
  });

  it("draws relations with arrowheads, sizes the picture to what it holds, and labels its tables", async () => {
    // New-user trial: a 960×640 picture for two nodes, no direction on the lines,
    // an empty table under "Relations to X", and tables without header rows.
    const page = await get("/console/graph/shared/pg_trgm");
    expect(page.status).toBe(200);
    const svg = /<svg[^>]*>/.exec(page.text)![0];
    const [, , width, height] = /viewBox="(-?\d+) (-?\d+) (\d+) (\d+)"/.exec(svg)!.slice(1).map(Number);
    expect(width).toBeLessThan(960);
    expect(height).toBeLessThan(640);
    expect(svg).toContain(`width="${width}" height="${height}"`);
    expect(page.text).toMatch(/<marker id="am-arrow"[^>]*orient="auto"/);
    expect(page.text).toContain('marker-end="url(#am-arrow)"');
    expect(page.text).not.toMatch(/ style=/); // the CSP allows no inline style
    // pg_trgm has one relation, to it from Postgres; none from it, and no observations.
    expect(page.text).toMatch(/<h2>Relations from pg_trgm<\/h2><p class="empty">None\.<\/p>/);
    expect(page.text).toMatch(/<h2>Relations to pg_trgm<\/h2><table class="relations"><thead><tr><th scope="col">Relation<\/th><th scope="col">From<\/th>/);
    expect(page.text).toMatch(/<h2>Observations \(0\)<\/h2><p class="empty">None\.<\/p>/);
    const full = await get("/console/graph/shared/agent-memory");
    expect(full.text).toContain('<th scope="col">Observation</th>');
    const search = await get("/console/graph?scope=shared");
    expect(search.text).toContain('<th scope="col">Observations</th>');
  });

  it("lays out the neighbourhood: centre, first and second hop, one edge per relation", () => {
    const { nodes, edges } = layoutNeighbourhood(
      "a",
      [
        { from: "a", to: "b", relationType: "r" },
        { from: "c", to: "A", relationType: "s" },
      ],
      [{ from: "b", to: "d", relationType: "t" }],
    );
    expect(nodes.map((n) => [n.name, n.hop])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 1],
      ["d", 2],
    ]);
    expect(edges).toHaveLength(3);
  });

  it("cuts the picture to its content: two nodes make a small one, a full ring a larger one", () => {
    const two = layoutNeighbourhood("a", [{ from: "a", to: "b", relationType: "r" }], []).box;
    expect(two.width).toBeLessThan(400);
    expect(two.height).toBeLessThan(200);
    const ring = layoutNeighbourhood("a", Array.from({ length: 16 }, (_, i) => ({ from: "a", to: `n${i}`, relationType: "r" })), []).box;
    expect(ring.width).toBeGreaterThan(340);
    expect(ring.height).toBeGreaterThan(340);
  });

  it("lists recent activity across facts, ledger and graph, filterable by agent, readable scopes only", async () => {
    const page = await get("/console/activity");
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-area="facts"');
    expect(page.text).toContain('data-area="ledger"');
    expect(page.text).toContain('data-area="graph"');
    expect(page.text).toContain("shared-fact");
    expect(page.text).not.toContain("secret-fact");
    expect(page.text).not.toContain("launch-plan");
    const root = await get("/console/activity?agent=root");
    expect(root.text).toContain("confirmed");
    expect(root.text).not.toContain('data-area="graph"');
  });

  it("shows who deleted what from the graph, in readable scopes only", async () => {
    const wiper = await callerOf(t.db, (await addAgent(t.db, "wiper", { scopes: ["shared", "secret"] })).token);
    const shared = { scope: "shared", agentId: wiper.agentId };
    await createEntities(t.db, { ...shared, maxChars: 4096 }, [
      { name: "東京オフィス", entityType: "office", observations: ["opened 2020", "closed 2026"] },
      { name: "old-office", entityType: "office", observations: [] },
    ]);
    await createRelations(t.db, { ...shared, maxChars: 4096 }, [{ from: "old-office", to: "東京オフィス", relationType: "moved to" }]);
    expect(await deleteObservations(t.db, shared, [{ entityName: "東京オフィス", observations: ["closed 2026"] }])).toMatchObject({ observations: 1 });
    expect(await deleteRelations(t.db, shared, [{ from: "old-office", to: "東京オフィス", relationType: "moved to" }])).toMatchObject({ relations: 1 });
    expect(await deleteEntities(t.db, shared, ["東京オフィス"])).toEqual({ entities: 1, relations: 0, observations: 1 });
    await deleteEntities(t.db, { scope: "secret", agentId: wiper.agentId }, ["launch-plan"]);

    const page = await get("/console/activity?agent=wiper");
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/<tr[^>]*data-area="graph"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
    expect(rows.find((r) => r.includes("entity deleted") && r.includes("shared/東京オフィス"))).toContain("office, with 1 observation");
    // Its length, never its text: an observation is often deleted because it held something that must go.
    expect(rows.find((r) => r.includes("observation deleted"))).toContain("an observation of 11 characters");
    expect(page.text).not.toContain("closed 2026");
    expect(rows.find((r) => r.includes("relation deleted"))).toContain("moved to → 東京オフィス");
    expect(rows.every((r) => r.includes("wiper"))).toBe(true);
    // alice cannot read scope secret: its deletion is not hers to see.
    expect(page.text).not.toContain("launch-plan");
    const recorded = await t.db.query<{ kind: string; scope: string }>("select kind, scope from graph_deletions where deleted_by = $1 order by id", [wiper.agentId]);
    expect(recorded.rows).toEqual([
      { kind: "observation", scope: "shared" },
      { kind: "relation", scope: "shared" },
      { kind: "entity", scope: "shared" },
      { kind: "entity", scope: "secret" },
    ]);
  });

  it("links entities named . and .. by query, since a browser resolves them away as path segments", async () => {
    const m = await callerOf(t.db, (await addAgent(t.db, "dotter", { scopes: ["shared"] })).token);
    await createEntities(t.db, { scope: "shared", agentId: m.agentId, maxChars: 4096 }, [
      { name: "..", entityType: "dotdir", observations: ["the parent"] },
      { name: ".", entityType: "dotdir", observations: ["the current one"] },
    ]);
    const search = await get("/console/graph?scope=shared&q=dotdir");
    expect(search.text).toContain('href="/console/graph/entity?scope=shared&amp;name=..');
    expect(search.text).toContain('href="/console/graph/entity?scope=shared&amp;name=."');
    const parent = await get("/console/graph/entity?scope=shared&name=..");
    expect(parent.status).toBe(200);
    expect(parent.text).toContain("the parent");
    expect((await get("/console/graph/entity?scope=secret&name=launch-plan")).status).toBe(403);
  });
});
