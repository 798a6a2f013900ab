// Every append hashes its event in SQL (am_ledger_append, through
// am_ledger_event_hash); `ledger verify` and `ledger export` recompute the hash
// in JS (eventHash), apart from the database that wrote it. Both must give the
// same bytes for every input a row can hold, or a sound chain stops verifying.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { exportLedger, verifyLedger } from "../../src/ledger/audit.js";
import { appendImported, lockChainHead, readKey } from "../../src/ledger/chain.js";
import { eventHash, type EventKind, type LedgerEvent } from "../../src/ledger/event.js";
import { type Actor, claimLedger, recordLedger, releaseLedger } from "../../src/ledger/store.js";
import type { Queryable } from "../../src/db/core/database.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

type Hashed = Omit<LedgerEvent, "hash" | "actorId">;

async function sqlHash(db: Queryable, e: Hashed): Promise<string> {
  const r = await db.query<{ h: string }>(
    `select am_ledger_event_hash($1::bigint, $2::text, $3::text, $4::text, $5::text, $6::timestamptz, $7::text, $8::text, $9::text, $10::timestamptz, $11::text, $12::text) as h`,
    [e.seq, e.kind, e.action, e.target, e.actor, e.at.toISOString(), e.evidence, e.note, e.reason, e.claimExpiresAt?.toISOString() ?? null, e.prevHash, e.claimRef],
  );
  return r.rows[0]!.h;
}

const base: Hashed = {
  seq: 1,
  kind: "executed",
  action: "publish_article",
  target: "article-1",
  actor: "writer",
  at: new Date("2026-11-30T12:00:00.123Z"),
  evidence: "https://example.com/a",
  note: null,
  reason: null,
  claimExpiresAt: null,
  prevHash: "0".repeat(64),
  claimRef: null,
};

// Each case changes the fields that make serialization hard.
const TRICKY: Array<[string, Partial<Hashed>]> = [
  ["plain", {}],
  ["Japanese and Korean", { target: "記事-第1回 기사", note: "公開しました。게시했습니다", actor: "書き手" }],
  ["emoji and astral planes", { note: "🚀 done 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 👩‍👩‍👧‍👦", reason: "𠀋𡈽" }],
  ["quotes, backslashes, controls", { note: `say "hi" \\ back\\slash\nnew line\ttab\r\b\f\u0001\u001f\u007f end` }],
  ["line and paragraph separators", { note: "a\u2028b\u2029c\u0085d" }],
  ["nested JSON text, key order kept as written", { note: `{"b":1,"a":{"z":[1,2,{"y":null}],"c":"\\u00e9"}}`, reason: `[{"k":"v"}, {"a":1}]` }],
  ["HTML and URL-ish text", { evidence: "https://例え.jp/パス?q=한국어&x=<b>&y='1'#frag", note: "<script>alert('x')</script>&amp;" }],
  ["long strings", { note: "長".repeat(2000), reason: "x".repeat(1000), evidence: `https://example.com/${"a".repeat(2020)}` }],
  ["all nulls", { evidence: null, note: null, reason: null, claimExpiresAt: null, kind: "voided" as EventKind }],
  ["claim with expiry", { kind: "claimed" as EventKind, evidence: null, claimExpiresAt: new Date("2026-11-30T12:05:00.000Z") }],
  ["claim with a reference", { kind: "claimed" as EventKind, evidence: null, claimExpiresAt: new Date("2026-11-30T12:05:00.000Z"), claimRef: "ab".repeat(32) }],
  ["record of a claim with a reference", { claimRef: "0123456789abcdef".repeat(4) }],
  ["large seq, odd times", { seq: 9_007_199_254_740_991, at: new Date("2000-01-01T00:00:00.001Z"), claimExpiresAt: new Date("2099-12-31T23:59:59.999Z") }],
  ["surrogate-free text beyond BMP", { target: "t-\u{10FFFF}-\u{1F600}", actor: "agent-ß-İ" }],
];

describe.each(BACKENDS)("the SQL event hash on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Actor;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const w = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    writer = { agentId: w.id, name: w.name };
  });

  it.each(TRICKY)("equals eventHash for %s", async (_name, change) => {
    const event = { ...base, ...change };
    expect(await sqlHash(tdb.db, event)).toBe(eventHash(event));
  });

  it("equals eventHash for generated text (any code point Postgres can store)", async () => {
    // NUL is the one character Postgres text cannot hold; surrogate halves cannot be UTF-8.
    const text = fc.string({ unit: "binary", maxLength: 60 }).filter((s) => !s.includes("\u0000"));
    await fc.assert(
      fc.asyncProperty(text, fc.option(text), fc.option(text), fc.integer({ min: 1, max: 2 ** 40 }), async (target, note, reason, seq) => {
        const event = { ...base, seq, target, note, reason };
        expect(await sqlHash(tdb.db, event)).toBe(eventHash(event));
      }),
      { numRuns: backend === "pglite" ? 60 : 200 },
    );
  });

  it("verifies a chain of imported events (their own times) and agents' writes, recomputed in JS", async () => {
    // An imported event, timed as it was exported.
    await tdb.db.transaction(async (tx) => {
      const key = { action: "publish_article", target: "古い記事" };
      await lockChainHead(tx);
      const state = await readKey(tx, key);
      const event = { ...key, kind: "executed" as EventKind, actor: writer.name, at: new Date("2026-01-02T03:04:05.678Z"), evidence: "https://example.com/old", note: "取り込み — \"quoted\"\n", reason: null, claimExpiresAt: null, claimRef: null };
      await appendImported(tx, state, event, writer, "drop");
    });
    // Agents' writes, with notes and reasons that are hard to serialize.
    for (const [i, [, change]] of TRICKY.entries()) {
      const key = { action: "publish_article", target: `new-${i}-${backend}` };
      await claimLedger(tdb.db, writer, { ...key, ttlSeconds: 60 });
      if (i % 3 === 0) await releaseLedger(tdb.db, writer, { ...key, reason: change.reason ?? "日本語の理由 / 한국어 이유" });
      else await recordLedger(tdb.db, writer, { ...key, evidence: "https://example.com/새-기사", note: (change.note ?? "메모").slice(0, 2000) });
    }
    const verify = await verifyLedger(tdb.db, 5);
    expect(verify.ok).toBe(true);
    const exported: LedgerEvent[] = [];
    const summary = await exportLedger(tdb.db, (e) => void exported.push(e), 5);
    expect(summary.rows).toBe(verify.rows);
    expect(exported.length).toBeGreaterThan(TRICKY.length * 2);
    for (const e of exported) expect(eventHash(e)).toBe(e.hash);
  });
});
