// The grouped append (src/ledger/appender.ts, am_ledger_append): several
// writes in one statement, each decided on its own under the head lock, each
// failing on its own, all in one hash chain.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { pgCode } from "../../src/db/core/errors.js";
import { verifyLedger } from "../../src/ledger/audit.js";
import { type Appended, appendMany, type AppendRequest } from "../../src/ledger/appender.js";
import { type Actor, checkLedger, claimLedger } from "../../src/ledger/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { countEvents } from "./support.js";

describe.each(BACKENDS)("grouped ledger appends on %s", (backend) => {
  let tdb: TestDatabase;
  let a: Actor;
  let b: Actor;

  const claim = (actor: Actor, target: string, over: Partial<AppendRequest> = {}): AppendRequest => ({
    kind: "claimed", action: "publish_article", target, actorId: actor.agentId, actor: actor.name, evidence: null, note: null, reason: null,
    ttlSeconds: 60, claim: "set", seenRecordSeq: null, seenClaim: null, maxOpenClaims: 100, at: null, claimExpiresAt: null, claimRef: null, idRequired: false, ...over,
  });

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    a = await createAgent(tdb.db, { name: "writer-a", kind: "agent", writeScopes: ["shared"] }).then((r) => ({ agentId: r.id, name: r.name }));
    b = await createAgent(tdb.db, { name: "writer-b", kind: "agent", writeScopes: ["shared"] }).then((r) => ({ agentId: r.id, name: r.name }));
  });

  it("appends each write of one call in order; a failing one is rolled back alone and answered with its own error", async () => {
    const before = await countEvents(tdb.db);
    const results = await appendMany(tdb.db, [
      claim(a, "many-1"),
      // Breaks a check constraint of ledger_events: this event alone fails.
      claim(a, "many-2", { kind: "not-a-kind" }),
      // The same key as the first, decided on "no claim": the first one is seen, so nothing is written.
      claim(b, "many-1"),
      claim(b, "many-3"),
    ]);
    const [first, failed, stale, last] = results;
    expect(failed).toBeInstanceOf(Error);
    expect(pgCode(failed)).toBe("23514");
    expect(stale).toBeNull();
    const ok = [first, last] as Appended[];
    expect(ok[1]!.seq).toBe(ok[0]!.seq + 1);
    expect(await countEvents(tdb.db)).toBe(before + 2);
    expect((await checkLedger(tdb.db, { action: "publish_article", target: "many-1" })).claim?.holder).toBe("writer-a");
    expect((await checkLedger(tdb.db, { action: "publish_article", target: "many-2" })).claim).toBeNull();
    expect((await checkLedger(tdb.db, { action: "publish_article", target: "many-3" })).claim?.holder).toBe("writer-b");
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
  });

  it("checks the claim quota under the lock, counting the claims appended before it in the same call", async () => {
    const results = await appendMany(tdb.db, [
      claim(a, "quota-1", { maxOpenClaims: 3 }), // writer-a holds many-1 already: 1 < 3
      claim(a, "quota-2", { maxOpenClaims: 3 }), // 2 < 3
      claim(a, "quota-3", { maxOpenClaims: 3 }), // 3 held: refused, nothing written
    ]);
    expect(results.map((r) => (r === null ? "not appended" : r instanceof Error ? r.message : "appended"))).toEqual(["appended", "appended", "not appended"]);
  });

  it("answers a call of one failing event with that event's error, and writes nothing", async () => {
    const before = await countEvents(tdb.db);
    const [only] = await appendMany(tdb.db, [claim(a, "alone-1", { kind: "not-a-kind" })]);
    expect(only).toBeInstanceOf(Error);
    expect(pgCode(only)).toBe("23514");
    expect(await countEvents(tdb.db)).toBe(before);
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
  });

  it("answers 60 claims sent at once through one handle, on gap-free seqs, with an intact chain", async () => {
    const claims = await Promise.all(Array.from({ length: 60 }, (_, i) => claimLedger(tdb.db, i % 2 ? a : b, { action: "deploy", target: `burst-${i}`, ttlSeconds: 60 })));
    const seqs = claims.map((c) => c.seq).sort((x, y) => x - y);
    expect(new Set(seqs).size).toBe(60);
    expect(seqs[59]! - seqs[0]!).toBe(59);
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
  });
});
