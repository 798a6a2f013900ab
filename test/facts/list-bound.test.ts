// memory_list reads a bounded number of facts per call (am_fact_page): a filter
// that matches little answers with what it found and a cursor that goes on,
// instead of reading the whole store in one call (security: 813 ms at 100,000
// facts for a type and an author who wrote nothing). On both backends:
// - following the cursors at any bound gives exactly the facts, in order, each
//   once, as an unbounded read does, for every filter and for the review queue
//   (drafts newest first, then stale facts the longest unreviewed first);
// - a filter that matches nothing takes floor(N / bound) + 1 calls over N
//   facts, so no call read more than the bound;
// - the console's review and stale queues keep the same bound.
// Over HTTP, an agent is told when a page stopped at LIST_SCAN_MAX.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { type ListInput, listFacts } from "../../src/facts/lifecycle/list.js";
import { reviewQueue, staleQueue } from "../../src/facts/review/queue.js";
import * as sql from "../../src/facts/sql.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addCaller, fact, store } from "./helpers.js";

const DAY_MS = 86_400_000;
const TYPES = ["project", "feedback", "reference"] as const;

describe.each(BACKENDS)("memory_list's bounded scan on %s", (backend) => {
  let tdb: TestDatabase;
  let writerA: Caller;
  let writerB: Caller;
  let reviewer: Caller;
  let total: number;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    writerA = await addCaller(tdb.db, "writer-a", { scopes: ["s-a", "s-b"], readScopes: ["*"] });
    writerB = await addCaller(tdb.db, "writer-b", { scopes: ["s-a", "s-h"], readScopes: ["*"] });
    reviewer = await addCaller(tdb.db, "reviewer", { scopes: ["s-a"], readScopes: ["*"] });
    // 46 facts: drafts and confirmed ones (some stale) by two writers in three
    // scopes, of three types; the reviewer may review only scope s-a's.
    const names: string[] = [];
    for (let i = 0; i < 46; i++) {
      const who = i % 3 === 0 ? writerB : writerA;
      const scope = who === writerB ? (i % 2 ? "s-h" : "s-a") : i % 2 ? "s-b" : "s-a";
      const name = `rule-${String(i).padStart(2, "0")}`;
      await store(tdb.db, who, { ...fact(name, { type: TYPES[i % 3] }), scope });
      names.push(name);
    }
    const ids = (await tdb.db.query<{ id: number; name: string; author_id: number }>("select id, name, author_id from facts order by id")).rows;
    const now = Date.now();
    for (const [k, row] of ids.entries()) {
      if (k % 4 !== 2) continue;
      // Confirmed by someone other than the author, some long ago (stale), some not; several at the same moment.
      const by = Number(row.author_id) === writerA.agentId ? writerB.agentId : writerA.agentId;
      const days = k % 8 === 2 ? 400 - (k % 3) : 2;
      await tdb.db.query(sql.PROMOTE_FACT, [row.id, "confirmed", by, "checked", "draft", new Date(now - days * DAY_MS)]);
    }
    total = ids.length;
  }, 120_000);

  /** Every fact a listing gives, following its cursors; and how many calls that took. */
  async function follow(caller: Caller, input: ListInput, scanMax: number, limit: number) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await listFacts(tdb.db, caller, { ...input, limit, cursor }, { scanMax });
      calls++;
      expect(page.facts.length).toBeLessThanOrEqual(limit);
      if (page.scanCut) expect(page.nextCursor).not.toBeNull();
      seen.push(...page.facts.map((f) => `${f.scope}/${f.name}${f.stale ? " (stale)" : ""}`));
      cursor = page.nextCursor ?? undefined;
      if (calls > 500) throw new Error("the cursors do not end");
    } while (cursor);
    return { seen, calls };
  }

  const cases: Array<[string, () => Caller, ListInput]> = [
    ["everything", () => writerA, {}],
    ["one type", () => writerA, { type: "reference" }],
    ["one author", () => writerA, { author: "writer-b" }],
    ["one scope", () => writerA, { scope: "s-h" }],
    ["drafts of one type", () => writerA, { status: "draft", type: "feedback" }],
    ["the review queue", () => reviewer, { reviewable: true }],
    ["the review queue, drafts", () => reviewer, { reviewable: true, status: "draft" }],
    ["the review queue, stale facts", () => reviewer, { reviewable: true, status: "confirmed" }],
    ["writer-a's review queue", () => writerA, { reviewable: true, type: "project" }],
  ];

  it.each(cases)("%s: any bound and page size give the same facts, in order, each once", async (_label, who, input) => {
    const whole = await follow(who(), input, 1_000_000, 100);
    expect(whole.calls).toBe(1);
    expect(new Set(whole.seen).size).toBe(whole.seen.length);
    for (const scanMax of [1, 2, 3, 7]) {
      for (const limit of [1, 4, 9]) {
        const bounded = await follow(who(), input, scanMax, limit);
        expect(bounded.seen, `bound ${scanMax}, page ${limit}`).toEqual(whole.seen);
      }
    }
  });

  it("the review queue is drafts newest first, then stale facts the longest unreviewed first", async () => {
    const { seen } = await follow(reviewer, { reviewable: true }, 1_000_000, 100);
    const stale = seen.filter((s) => s.endsWith("(stale)"));
    expect(stale.length).toBeGreaterThan(0);
    expect(seen.slice(seen.length - stale.length)).toEqual(stale);
    expect(seen.every((s) => s.startsWith("s-a/"))).toBe(true);
  });

  it("a filter that matches nothing reads the store a bound at a time: floor(N / bound) + 1 calls", async () => {
    for (const scanMax of [1, 5, 10, 46]) {
      const { seen, calls } = await follow(writerA, { author: "reviewer" }, scanMax, 20);
      expect(seen).toEqual([]);
      expect(calls, `bound ${scanMax}`).toBe(Math.floor(total / scanMax) + 1);
    }
    // An author of that name does not exist: read the same way, so that the
    // answer does not tell which names are agents (security audit, stop 21; am_fact_page).
    for (const scanMax of [5, 46]) {
      expect(await follow(writerA, { author: "nobody-here" }, scanMax, 20)).toEqual(await follow(writerA, { author: "reviewer" }, scanMax, 20));
    }
  });

  it("refuses a review-queue cursor without reviewable: true, and says what to do", async () => {
    const stale = await listFacts(tdb.db, reviewer, { reviewable: true, status: "confirmed", limit: 1 }, { scanMax: 1_000 });
    expect(stale.nextCursor).not.toBeNull();
    await expect(listFacts(tdb.db, reviewer, { cursor: stale.nextCursor! })).rejects.toThrow(/review queue: pass reviewable: true/);
  });

  it("seals its cursors: opaque (a scan may stop on a fact the caller cannot read), and refused when altered", async () => {
    // writer-a reads every scope; the reviewer reads every scope too, so make one that reads s-a only.
    const narrow = await addCaller(tdb.db, "narrow-reader", { scopes: ["s-a"] });
    const page = await listFacts(tdb.db, narrow, { limit: 1 }, { scanMax: 2 });
    expect(page.nextCursor).not.toBeNull();
    const raw = Buffer.from(page.nextCursor!, "base64url").toString("utf8");
    expect(raw).not.toMatch(/"s"|"p"|"t"|"i"/);
    expect(() => JSON.parse(raw) as unknown).toThrow();
    const altered = page.nextCursor!.slice(0, 20) + (page.nextCursor![20] === "A" ? "B" : "A") + page.nextCursor!.slice(21);
    await expect(listFacts(tdb.db, narrow, { limit: 1, cursor: altered }, { scanMax: 2 })).rejects.toThrow(/^cursor is not valid/);
    // An unsealed cursor of the old form is refused the same way.
    const plain = Buffer.from(JSON.stringify({ s: 10 })).toString("base64url");
    await expect(listFacts(tdb.db, narrow, { cursor: plain })).rejects.toThrow(/^cursor is not valid/);
  });

  it("the console's queues keep the bound, say when they stopped at it, and go on from there", async () => {
    const whole = await reviewQueue(tdb.db, reviewer, { limit: 100, scanMax: 1_000_000 });
    expect(whole.scanCut).toBe(false);
    const names: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await reviewQueue(tdb.db, reviewer, { limit: 2, cursor: after, scanMax: 2 });
      names.push(...page.items.map((i) => i.name));
      if (page.scanCut) expect(page.nextCursor).not.toBeNull();
      // Sealed: a cut page's position may be a draft the reviewer cannot read.
      if (page.nextCursor) expect(page.nextCursor).not.toMatch(/^\d+$/);
      after = page.nextCursor ?? undefined;
      pages++;
    } while (after !== undefined && pages < 200);
    expect(names).toEqual(whole.items.map((i) => i.name));
    await expect(reviewQueue(tdb.db, reviewer, { limit: 2, cursor: "10", scanMax: 2 })).rejects.toThrow(/^cursor is not valid/);
    // Counted by a scan of 2 drafts: at least, never more than it saw.
    const counted = await reviewQueue(tdb.db, reviewer, { limit: 1, scanMax: 2 });
    expect(counted.countCapped).toBe(true);
    expect(counted.count).toBeLessThanOrEqual(2);
    expect(whole.count).toBe(whole.items.length);

    const stale = await staleQueue(tdb.db, reviewer, { limit: 100, scanMax: 1_000_000 });
    expect(stale.items.length).toBeGreaterThan(0);
    const cut = await staleQueue(tdb.db, reviewer, { limit: 100, scanMax: 1 });
    expect(cut.scanCut).toBe(true);
    expect(cut.items.map((i) => i.name)).toEqual(stale.items.slice(0, cut.items.length).map((i) => i.name));
    // The console's "More stale facts" goes on past the bound, to every stale fact, each once.
    const staleNames: string[] = [];
    let cursor: string | undefined;
    let looks = 0;
    do {
      const look = await staleQueue(tdb.db, reviewer, { limit: 100, scanMax: 1, cursor });
      staleNames.push(...look.items.map((i) => i.name));
      cursor = look.nextCursor ?? undefined;
      looks++;
    } while (cursor && looks < 500);
    expect(staleNames).toEqual(stale.items.map((i) => i.name));
    expect(stale.nextCursor).toBeNull();
  });
});

describe("memory_list over HTTP with LIST_SCAN_MAX=100", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db, {}, (c) => (c.limits.listScanMax = 100));
    const writer = await addCaller(tdb.db, "many-writer", { scopes: ["shared"] });
    await addCaller(tdb.db, "quiet-writer", { scopes: ["shared"] });
    // 250 facts by one writer, written straight into the table (the store path is tested elsewhere).
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', 'note-' || g, 'Note ' || g, 'project', 'Why and how ' || g, $1::bigint from generate_series(1, 250) g`,
      [writer.agentId],
    );
    client = await connectClient(service, writer.token, "many-writer");
  });

  it("a filter that matches nothing answers after 100 facts, says so, and hands out a cursor that goes on", async () => {
    const args = { author: "quiet-writer" };
    const first = await client.callTool({ name: "memory_list", arguments: args });
    const page = first.structuredContent as { facts: unknown[]; nextCursor: string | null; scanCut?: boolean };
    expect(page).toMatchObject({ facts: [], scanCut: true });
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(textOf(first)).toContain("looked through as many facts as one call may (LIST_SCAN_MAX)");
    expect(textOf(first)).toContain(`cursor "${page.nextCursor}"`);
    let cursor = page.nextCursor;
    let calls = 1;
    while (cursor) {
      const next = await callOk<{ facts: unknown[]; nextCursor: string | null; scanCut?: boolean }>(client, "memory_list", { ...args, cursor });
      expect(next.facts).toEqual([]);
      cursor = next.nextCursor;
      calls++;
    }
    expect(calls).toBe(3); // 250 facts, 100 a call
    // A page that fills says nothing of the bound.
    const full = await client.callTool({ name: "memory_list", arguments: {} });
    expect((full.structuredContent as { scanCut?: boolean }).scanCut).toBeUndefined();
    expect(textOf(full)).not.toContain("LIST_SCAN_MAX");
  });
});
