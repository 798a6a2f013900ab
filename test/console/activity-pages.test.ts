// The activity feed's "Older activity" pages: following the links from the
// newest page shows every readable item exactly once, newest first, however
// the sources (fact events, four graph tables, the ledger) interleave, and
// with an agent filter also across pages whose reads stopped at their bound
// (LIST_SCAN_MAX) in several scopes. Nothing from an unreadable scope.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEntities } from "../../src/graph/store.js";
import { claimAndRecord } from "../ledger/support.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent } from "../support/service.js";
import { callerOf, type ConsoleApp, draft, signIn, type SignedIn, startConsoleApp } from "./support.js";

interface Row {
  at: string;
  who: string;
  area: string;
  what: string;
  on: string;
  detail: string;
}

const ROUNDS = 6;
const BATCH = 60;
const LEDGER_PER_ROUND = 30;

describe.each(BACKENDS)("console activity pages (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let who: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    app = await startConsoleApp(t.db, {}, (c) => (c.limits.listScanMax = 100));
    const alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared", "team"] });
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared", "team", "hidden"] })).token);
    const other = await callerOf(t.db, (await addAgent(t.db, "other", { scopes: ["shared", "team"] })).token);
    // Per round: writer fills each scope's tables (graph entities in batches,
    // ledger events), then other writes one of each kind, alternating scopes.
    for (let r = 0; r < ROUNDS; r++) {
      for (const scope of ["shared", "team", "hidden"]) {
        const names = Array.from({ length: BATCH }, (_, i) => ({ name: `w-${scope}-${r}-${i}`, entityType: "bulk", observations: [] }));
        await createEntities(t.db, { scope, agentId: writer.agentId, maxChars: 4096 }, names);
      }
      for (let i = 0; i < LEDGER_PER_ROUND; i++) await claimAndRecord(t.db, writer, { action: "bulk_job", target: `w-${r}-${i}`, evidence: "https://ci.example/w" });
      await draft(t.db, writer, `w-fact-${r}`, r % 2 ? "team" : "hidden");
      const scope = r % 2 ? "shared" : "team";
      await createEntities(t.db, { scope, agentId: other.agentId, maxChars: 4096 }, [{ name: `o-entity-${r}`, entityType: "note", observations: [`o-observation-${r}`] }]);
      await draft(t.db, other, `o-fact-${r}`, scope);
      await claimAndRecord(t.db, other, { action: "o_job", target: `o-${r}`, evidence: "https://ci.example/o" });
    }
    who = await signIn(app.base, alice.token);
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  const unescape = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'");

  /** Follows "Older activity" from `path` to the end: every row of every page, and how many pages said their read stopped. */
  async function walk(path: string): Promise<{ rows: Row[]; pages: number; cutPages: number }> {
    const rows: Row[] = [];
    let next: string | undefined = path;
    let pages = 0;
    let cutPages = 0;
    while (next) {
      const page: { status: number; text: string } = await request(app.base).get(next).set("Cookie", who.cookie);
      expect(page.status, next).toBe(200);
      pages++;
      expect(pages, "the links should come to an end").toBeLessThan(60);
      if (page.text.includes("This page stopped after looking through")) cutPages++;
      for (const [, tr] of page.text.matchAll(/<tr data-area="[a-z]+">([\s\S]*?)<\/tr>/g)) {
        const cells = [...tr!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
        rows.push({ at: /title="([^"]+)"/.exec(cells[0]!)![1]!, who: unescape(cells[1]!), area: unescape(cells[2]!), what: unescape(cells[3]!), on: unescape(cells[4]!), detail: unescape(cells[5]!) });
      }
      const href: string | undefined = /<a href="([^"]+)">Older activity<\/a>/.exec(page.text)?.[1];
      next = href ? unescape(href) : undefined;
    }
    return { rows, pages, cutPages };
  }

  const key = (r: Row) => `${r.area}|${r.what}|${r.on}|${r.detail}`;
  const newestFirst = (rows: Row[]) => rows.every((r, i) => i === 0 || rows[i - 1]!.at >= r.at);

  it("pages back through everything readable, once each, newest first", async () => {
    const { rows, pages } = await walk("/console/activity");
    // Readable: writer's entities in shared and team, other's entity,
    // observation and fact, writer's facts in team, every ledger event.
    const expected = ROUNDS * (2 * BATCH) + ROUNDS * 3 + ROUNDS / 2 + 2 * ROUNDS * (LEDGER_PER_ROUND + 1);
    expect(new Set(rows.map(key)).size, "no item twice").toBe(rows.length);
    expect(rows.length).toBe(expected);
    expect(pages).toBe(Math.ceil(expected / 100));
    expect(newestFirst(rows), "newest first across pages").toBe(true);
    expect(rows.some((r) => r.on.includes("hidden"))).toBe(false);
    expect(rows.filter((r) => r.area === "ledger")).toHaveLength(2 * ROUNDS * (LEDGER_PER_ROUND + 1));
  });

  it("with an agent filter, goes on past reads that stopped at their bound, in every source and scope", async () => {
    const { rows, cutPages } = await walk("/console/activity?agent=other");
    expect(cutPages, "some page should have stopped at LIST_SCAN_MAX").toBeGreaterThan(0);
    expect(rows.every((r) => r.who === "other")).toBe(true);
    expect(new Set(rows.map(key)).size, "no item twice").toBe(rows.length);
    const found = (w: string) => rows.filter((r) => (r.on.includes(w) && r.what !== "observation added") || r.detail === w);
    for (let r = 0; r < ROUNDS; r++) {
      for (const w of [`o-entity-${r}`, `o-observation-${r}`, `o-fact-${r}`]) expect(found(w), w).toHaveLength(1);
      // The job's claim and its record.
      expect(found(`o_job o-${r}`), `o_job o-${r}`).toHaveLength(2);
    }
    expect(rows).toHaveLength(ROUNDS * 5);
    expect(newestFirst(rows)).toBe(true);
  });

  it("an agent filter naming nobody reads like one naming an agent who wrote nothing (names are not revealed)", async () => {
    const unknown = await walk("/console/activity?agent=nobody-here");
    const idle = await walk("/console/activity?agent=alice");
    expect(unknown.rows).toEqual([]);
    expect({ pages: unknown.pages, cutPages: unknown.cutPages }).toEqual({ pages: idle.pages, cutPages: idle.cutPages });
    expect(unknown.cutPages).toBeGreaterThan(0);
  });

  it("refuses an altered link with a page that says to start again", async () => {
    const page = await request(app.base).get("/console/activity?cursor=AAAA").set("Cookie", who.cookie);
    expect(page.status).toBe(400);
    expect(page.text).toContain("This link to older activity is not valid");
  });
});
