// ledger_list reads a bounded number of events per call (am_ledger_page), like
// memory_list: a filter that matches little answers with what it found and a
// cursor that goes on, instead of reading the whole ledger in one call. On both
// backends: following the cursors at any bound gives exactly the events of an
// unbounded read, in order, each once, for every filter; a filter that matches
// nothing takes floor(N / bound) + 1 calls; `since` starts the scan near its
// time instead of reading back through the history.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { type Actor, claimLedger, recordLedger, releaseLedger } from "../../src/ledger/store.js";
import { type ListFilters, listLedger } from "../../src/ledger/list.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { countEvents } from "./support.js";

describe.each(BACKENDS)("ledger_list's bounded scan on %s", (backend) => {
  let tdb: TestDatabase;
  let total: number;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const actors: Actor[] = [];
    for (const name of ["writer", "deployer", "bot"]) {
      const a = await createAgent(tdb.db, { name, kind: "agent", writeScopes: ["shared"] });
      actors.push({ agentId: a.id, name: a.name });
    }
    // Claims, releases and records by three agents over three actions and a few targets.
    for (let i = 0; i < 14; i++) {
      const actor = actors[i % 3]!;
      const key = { action: ["publish_post", "deploy_api", "send_mail"][i % 3]!, target: `t-${i % 4}-${i}` };
      await claimLedger(tdb.db, actor, { ...key, ttlSeconds: 60 });
      if (i % 4 === 3) await releaseLedger(tdb.db, actor, { ...key, reason: "not today" });
      else await recordLedger(tdb.db, actor, { ...key, evidence: `https://ci.example/${i}` });
    }
    total = await countEvents(tdb.db);
  }, 120_000);

  async function follow(filters: ListFilters, scanMax: number, limit: number) {
    const seen: number[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await listLedger(tdb.db, { ...filters, limit, cursor }, { scanMax });
      calls++;
      expect(page.events.length).toBeLessThanOrEqual(limit);
      if (page.scanCut) expect(page.nextCursor).not.toBeNull();
      seen.push(...page.events.map((e) => e.seq));
      cursor = page.nextCursor ?? undefined;
      if (calls > 500) throw new Error("the cursors do not end");
    } while (cursor);
    return { seen, calls };
  }

  const cases: Array<[string, ListFilters]> = [
    ["everything", {}],
    ["one kind", { kind: "released" }],
    ["one actor", { actor: "deployer" }],
    ["one actor and kind", { actor: "bot", kind: "executed" }],
    ["one action", { action: "deploy_api" }],
    ["one action and kind", { action: "send_mail", kind: "claimed" }],
    ["one key", { action: "publish_post", target: "t-0-0" }],
    ["one target", { target: "t-1-5" }],
    ["since long ago", { since: "2000-01-01" }],
  ];

  it.each(cases)("%s: any bound and page size give the same events, in order, each once", async (_label, filters) => {
    const whole = await follow(filters, 1_000_000, 200);
    expect(whole.calls).toBe(1);
    expect(whole.seen.length).toBeGreaterThan(0);
    expect(whole.seen).toEqual([...whole.seen].sort((a, b) => b - a));
    for (const scanMax of [1, 2, 3, 7]) {
      for (const limit of [1, 4]) {
        expect((await follow(filters, scanMax, limit)).seen, `bound ${scanMax}, page ${limit}`).toEqual(whole.seen);
      }
    }
  });

  it("a filter that matches nothing reads the ledger a bound at a time: floor(N / bound) + 1 calls", async () => {
    for (const scanMax of [1, 5, total]) {
      const { seen, calls } = await follow({ kind: "voided" }, scanMax, 20);
      expect(seen).toEqual([]);
      expect(calls, `bound ${scanMax}`).toBe(Math.floor(total / scanMax) + 1);
    }
  });

  it("since: nothing newer means one call that reads nothing; an hour ago reads only the recent range", async () => {
    expect(await follow({ since: "2999-01-01T00:00:00Z" }, 1, 20)).toEqual({ seen: [], calls: 1 });
    // All events are from the last minutes: since an hour ago, every one of them, as without since.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    expect((await follow({ since: hourAgo }, 3, 5)).seen).toEqual((await follow({}, 1_000_000, 200)).seen);
  });
});

describe("ledger_list since: the scan starts near its time (postgres)", () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const a = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    // 30 events written in 2020, straight into the table (their hashes are not a chain: only the list is tested here).
    await tdb.db.query(
      `insert into ledger_events (seq, kind, action, target, actor_id, actor, at, recorded_at, evidence, prev_hash, hash)
       select g, 'executed', 'old_action', 'old-' || g, $1::bigint, 'writer', timestamptz '2020-01-01' + g * interval '1 minute',
              timestamptz '2020-01-01' + g * interval '1 minute', 'https://ci.example/old', repeat('0', 64), repeat('0', 64)
         from generate_series(1, 30) g`,
      [a.id],
    );
    await tdb.db.query("update ledger_chain_head set last_seq = 30");
    const writer = { agentId: a.id, name: a.name };
    for (let i = 0; i < 4; i++) await claimLedger(tdb.db, writer, { action: "new_action", target: `new-${i}` });
  });

  it("reads only the events from an hour before since on, not the history before it", async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    let calls = 0;
    let cursor: string | undefined;
    do {
      const page = await listLedger(tdb.db, { since, kind: "voided", cursor }, { scanMax: 1 });
      calls++;
      cursor = page.nextCursor ?? undefined;
    } while (cursor && calls < 100);
    // Four recent events, one per call, then the end: the 30 of 2020 are never read.
    expect(calls).toBe(5);
    const recent = await listLedger(tdb.db, { since }, { scanMax: 1_000 });
    expect(recent.events.map((e) => e.action)).toEqual(["new_action", "new_action", "new_action", "new_action"]);
    expect((await listLedger(tdb.db, { since: "2019-12-31", limit: 200 }, { scanMax: 1_000 })).events).toHaveLength(34);
  });
});
