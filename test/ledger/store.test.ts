// The ledger's rules at the store level, on both backends.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { DomainError } from "../../src/errors.js";
import { exportLedger, verifyLedger } from "../../src/ledger/audit.js";
import { eventHash, type LedgerEvent } from "../../src/ledger/event.js";
import { type Actor, checkLedger, claimLedger, recordLedger, releaseLedger } from "../../src/ledger/store.js";
import { listLedger } from "../../src/ledger/list.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { claimAndRecord, countEvents, expireClaim, tamper } from "./support.js";

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe.each(BACKENDS)("ledger store on %s", (backend) => {
  let tdb: TestDatabase;
  let writer: Actor;
  let deployer: Actor;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const w = await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
    const d = await createAgent(tdb.db, { name: "deployer", kind: "agent", writeScopes: ["shared"] });
    writer = { agentId: w.id, name: w.name };
    deployer = { agentId: d.id, name: d.name };
  });

  it("runs check → claim → record → check, folding the action's case and trimming the target", async () => {
    const key = { action: "Publish_Qiita", target: "  article-1 " };
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");

    const claimed = await claimLedger(tdb.db, writer, { ...key, ttlSeconds: 60 });
    expect(claimed.kind).toBe("claimed");
    expect(claimed.claim).toMatchObject({ action: "publish_qiita", target: "article-1", holder: "writer" });
    expect(claimed.claim.expiresAt.getTime() - claimed.claim.claimedAt.getTime()).toBe(60_000);
    const during = await checkLedger(tdb.db, { action: "publish_qiita", target: "article-1" });
    expect(during.status).toBe("CLAIMED");
    expect(during.claim?.holder).toBe("writer");

    const recorded = await recordLedger(tdb.db, writer, { ...key, evidence: "https://qiita.com/writer/items/1", note: " first post " });
    expect(recorded.idempotent).toBe(false);
    expect(recorded.closedClaim?.holder).toBe("writer");
    expect(recorded.record).toMatchObject({ action: "publish_qiita", target: "article-1", actor: "writer", note: "first post" });

    const after = await checkLedger(tdb.db, key);
    expect(after.status).toBe("EXECUTED");
    expect(after.claim).toBeNull();
    expect(after.executed).toEqual(recorded.record);
  });

  it("treats every spelling of an action, and every Unicode form of a target, as one key", async () => {
    await claimLedger(tdb.db, writer, { action: "Publish-Zenn", target: "cafe\u0301" });
    const recorded = await recordLedger(tdb.db, writer, { action: "Publish-Zenn", target: "cafe\u0301", evidence: "https://zenn.dev/w/1" });
    expect(recorded.record).toMatchObject({ action: "publish_zenn", target: "caf\u00e9" });
    for (const action of ["publish_zenn", "PUBLISH-ZENN", "publish-zenn"]) {
      expect((await checkLedger(tdb.db, { action, target: "caf\u00e9" })).status).toBe("EXECUTED");
    }
    const second = await refusal(recordLedger(tdb.db, deployer, { action: "publish_zenn", target: "café", evidence: "https://zenn.dev/d/1" }));
    expect(second.code).toBe("conflict");
  });

  it("refuses a claim on an executed action, showing the record", async () => {
    const before = await countEvents(tdb.db);
    const error = await refusal(claimLedger(tdb.db, deployer, { action: "publish_qiita", target: "article-1" }));
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/was executed by writer at .* Evidence: https:\/\/qiita\.com\/writer\/items\/1/);
    expect(await countEvents(tdb.db)).toBe(before);
  });

  it("gives a held claim to nobody else, renews it for its holder, and lets it be taken over once expired", async () => {
    const key = { action: "deploy_prod", target: "v1.2.3" };
    const first = await claimLedger(tdb.db, deployer, key);
    const held = await refusal(claimLedger(tdb.db, writer, key));
    expect(held.code).toBe("conflict");
    expect(held.message).toMatch(/claimed by deployer until \S+ \(\d+ s left\)/);

    const renewed = await claimLedger(tdb.db, deployer, { ...key, ttlSeconds: 3600, claimId: first.claimId });
    expect(renewed.kind).toBe("renewed");
    expect(renewed.claimId).toBe(first.claimId);

    await expireClaim(tdb.db, "deploy_prod", "v1.2.3");
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    const taken = await claimLedger(tdb.db, writer, key);
    expect(taken.kind).toBe("taken_over");
    expect(taken.previous?.holder).toBe("deployer");
    const history = await listLedger(tdb.db, { action: "deploy_prod" });
    expect(history.events.map((e) => [e.kind, e.actor])).toEqual([
      ["taken_over", "writer"],
      ["renewed", "deployer"],
      ["claimed", "deployer"],
    ]);
    expect(history.events[0]!.reason).toMatch(/the claim of deployer expired at/);
  });

  it("refuses a record while another agent holds an unexpired claim, and after it expired until the recorder claims", async () => {
    const key = { action: "call_paid_api", target: "invoice-7" };
    await claimLedger(tdb.db, deployer, key);
    const error = await refusal(recordLedger(tdb.db, writer, { ...key, evidence: "https://billing.example/7" }));
    expect(error.message).toMatch(/only deployer may record it/);
    await expireClaim(tdb.db, key.action, key.target);
    const expired = await refusal(recordLedger(tdb.db, writer, { ...key, evidence: "https://billing.example/7" }));
    expect(expired.message).toMatch(/^Refused: you hold no claim on call_paid_api for "invoice-7" \(the last one, by deployer, expired at .*\)\. Only the holder of its claim records an action: call ledger_claim, then ledger_record\. Nothing was written\.$/);
    expect((await claimLedger(tdb.db, writer, key)).kind).toBe("taken_over");
    const recorded = await recordLedger(tdb.db, writer, { ...key, evidence: "https://billing.example/7" });
    expect(recorded.closedClaim?.holder).toBe("writer");
    expect((await checkLedger(tdb.db, key)).claim).toBeNull();
  });

  it("records only with the recorder's own claim: none is refused and writes nothing; the holder's own expired claim still records", async () => {
    const key = { action: "deploy_prod", target: "v-unclaimed" };
    const before = await countEvents(tdb.db);
    const error = await refusal(recordLedger(tdb.db, writer, { ...key, evidence: "https://ci.example/runs/1" }));
    expect(error.code).toBe("conflict");
    expect(error.message).toBe('Refused: you hold no claim on deploy_prod for "v-unclaimed". Only the holder of its claim records an action: call ledger_claim, then ledger_record. Nothing was written.');
    expect(await countEvents(tdb.db)).toBe(before);
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    // A deploy that outlasted its claim: nobody took the key over, so its holder records it.
    await claimLedger(tdb.db, writer, key);
    await expireClaim(tdb.db, key.action, key.target);
    const recorded = await recordLedger(tdb.db, writer, { ...key, evidence: "https://ci.example/runs/1" });
    expect(recorded.closedClaim?.holder).toBe("writer");
  });

  it("answers an identical retry with the existing record and refuses any other second record", async () => {
    const key = { action: "publish_zenn", target: "post-9" };
    await claimLedger(tdb.db, writer, key);
    const first = await recordLedger(tdb.db, writer, { ...key, evidence: "https://zenn.dev/w/articles/9" });
    const before = await countEvents(tdb.db);
    const retry = await recordLedger(tdb.db, writer, { ...key, evidence: "https://zenn.dev/w/articles/9", note: "retry" });
    expect(retry).toEqual({ record: first.record, idempotent: true, closedClaim: null });
    const otherEvidence = await refusal(recordLedger(tdb.db, writer, { ...key, evidence: "https://zenn.dev/w/articles/10" }));
    expect(otherEvidence.message).toMatch(/second record .* not allowed.*ledger #\d+/);
    const otherActor = await refusal(recordLedger(tdb.db, deployer, { ...key, evidence: "https://zenn.dev/w/articles/9" }));
    expect(otherActor.code).toBe("conflict");
    expect(await countEvents(tdb.db)).toBe(before);
  });

  it("releases only the caller's own claim, with the reason in the ledger", async () => {
    const key = { action: "deploy_staging", target: "build-42" };
    expect((await refusal(releaseLedger(tdb.db, writer, { ...key, reason: "x" }))).code).toBe("not_found");
    await claimLedger(tdb.db, deployer, key);
    expect((await refusal(releaseLedger(tdb.db, writer, { ...key, reason: "not mine" }))).code).toBe("forbidden");
    expect((await refusal(releaseLedger(tdb.db, deployer, { ...key, reason: "   " }))).message).toMatch(/^reason must not be empty/);
    const released = await releaseLedger(tdb.db, deployer, { ...key, reason: "tests failed" });
    expect(released.reason).toBe("tests failed");
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    expect((await claimLedger(tdb.db, writer, key)).kind).toBe("claimed");
    await recordLedger(tdb.db, writer, { ...key, evidence: "https://ci.example/42" });
    expect((await refusal(releaseLedger(tdb.db, writer, { ...key, reason: "late" }))).message).toMatch(/^Nothing to release: .* was executed/);
  });

  it.each([
    [{ action: "", target: "t", evidence: "https://a.example" }, /^action must not be empty/],
    [{ action: "publish qiita", target: "t", evidence: "https://a.example" }, /^action "publish qiita" is not a snake_case or kebab-case/],
    [{ action: "publish__qiita", target: "t", evidence: "https://a.example" }, /^action /],
    [{ action: "a".repeat(201), target: "t", evidence: "https://a.example" }, /^action is 201 characters; the limit is 200/],
    [{ action: "publish", target: "   ", evidence: "https://a.example" }, /^target must not be empty/],
    [{ action: "publish", target: "x".repeat(201), evidence: "https://a.example" }, /^target is 201 characters/],
    [{ action: "publish", target: "a\nb", evidence: "https://a.example" }, /^target must not contain control characters/],
    [{ action: "publish", target: "t", evidence: "" }, /^evidence must be .*it is empty/],
    [{ action: "publish", target: "t", evidence: "ftp://files.example/x" }, /^evidence must be .* uses ftp:/],
    [{ action: "publish", target: "t", evidence: "javascript:alert(1)" }, /^evidence must be .* uses javascript:/],
    [{ action: "publish", target: "t", evidence: "/items/1" }, /^evidence must be .* not an absolute URL/],
    [{ action: "publish", target: "t", evidence: "https://user:secret@a.example/x" }, /^evidence must not contain a user name or password/],
    [{ action: "publish", target: "t", evidence: `https://a.example/${"x".repeat(2048)}` }, /^evidence is 2066 characters; the limit is 2048/],
    [{ action: "publish", target: "t", evidence: "https://a.example", note: "n".repeat(2001) }, /^note is 2001 characters/],
    [{ action: "publish", target: "t", evidence: "https://a.example", note: "bad \u0000 byte" }, /^note contains a NUL character/],
    [{ action: "publish", target: "t\uD800", evidence: "https://a.example" }, /^target contains a NUL character or broken Unicode/],
  ])("refuses bad record input %#, naming the field, writing nothing", async (input, message) => {
    const before = await countEvents(tdb.db);
    const error = await refusal(recordLedger(tdb.db, writer, input));
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(message);
    expect(await countEvents(tdb.db)).toBe(before);
  });

  it("refuses a ttl outside 10..86400 seconds", async () => {
    for (const ttlSeconds of [9, 86_401, 1.5]) {
      expect((await refusal(claimLedger(tdb.db, writer, { action: "a", target: "b", ttlSeconds }))).message).toMatch(/^ttl_seconds must be a whole number from 10 to 86400/);
    }
  });

  it("lists newest first with filters and a cursor", async () => {
    const all = await listLedger(tdb.db, { limit: 200 });
    const total = await countEvents(tdb.db);
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => total - i));
    expect(all.nextCursor).toBeNull();

    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await listLedger(tdb.db, { limit: 3, cursor });
      seen.push(...page.events.map((e) => e.seq));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.events.map((e) => e.seq));

    const executedByWriter = await listLedger(tdb.db, { actor: "writer", kind: "executed" });
    expect(executedByWriter.events.length).toBeGreaterThan(0);
    expect(executedByWriter.events.every((e) => e.actor === "writer" && e.kind === "executed" && e.evidence)).toBe(true);
    expect((await listLedger(tdb.db, { action: "PUBLISH_QIITA", target: "article-1" })).events.map((e) => e.kind)).toEqual(["executed", "claimed"]);
    expect((await listLedger(tdb.db, { since: "2999-01-01T00:00:00Z" })).events).toEqual([]);
    expect((await listLedger(tdb.db, { since: "2000-01-01" })).events.length).toBe(Math.min(20, total));
    expect((await refusal(listLedger(tdb.db, { since: "yesterday" }))).message).toMatch(/^since must be an ISO 8601 date \(midnight UTC\) or a time with a zone/);
    expect((await refusal(listLedger(tdb.db, { cursor: "nope" }))).message).toMatch(/^cursor is not valid/);
    expect((await refusal(listLedger(tdb.db, { limit: 201 }))).message).toMatch(/^limit must be a whole number from 1 to 200/);
  });

  it("stores a chain whose hashes recompute, and exports it in order", async () => {
    const exported: LedgerEvent[] = [];
    const summary = await exportLedger(tdb.db, (e) => void exported.push(e), 4);
    expect(summary.rows).toBe(await countEvents(tdb.db));
    expect(exported.map((e) => e.seq)).toEqual(exported.map((_, i) => i + 1));
    for (const [i, e] of exported.entries()) {
      const { hash, ...content } = e;
      expect(eventHash(content)).toBe(hash);
      if (i > 0) expect(e.prevHash).toBe(exported[i - 1]!.hash);
    }
    expect(await verifyLedger(tdb.db, 4)).toMatchObject({ ok: true, rows: summary.rows, lastHash: summary.lastHash });
  });

  it("rejects UPDATE, DELETE and TRUNCATE on the ledger, even of zero rows", async () => {
    for (const statement of [
      "update ledger_events set note = 'edited' where seq = 1",
      "update ledger_events set note = 'edited' where false",
      "delete from ledger_events where seq = 1",
      "truncate ledger_events cascade",
      "delete from ledger_chain_head",
    ]) {
      await expect(tdb.db.query(statement), statement).rejects.toThrow(/the ledger is append-only/);
    }
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
  });

  it("catches an edit, a deletion and a forged row made behind the trigger's back", async () => {
    const original = (await tdb.db.query<{ evidence: string }>("select evidence from ledger_events where kind = 'executed' order by seq limit 1")).rows[0]!;
    const edited = (await tdb.db.query<{ seq: number }>("select seq from ledger_events where kind = 'executed' order by seq limit 1")).rows[0]!.seq;
    await tamper(tdb.db, "update ledger_events set evidence = 'https://evil.example/' where seq = $1::bigint", [edited]);
    expect(await verifyLedger(tdb.db, 2)).toMatchObject({ ok: false, rows: edited - 1, broken: { seq: edited, problem: expect.stringMatching(/does not match its hash/) } });
    await tamper(tdb.db, "update ledger_events set evidence = $2::text where seq = $1::bigint", [edited, original.evidence]);
    expect((await verifyLedger(tdb.db, 2)).ok).toBe(true);

    // Deleting a row and relinking the next one is still caught: the gap in seq.
    await tamper(tdb.db, "delete from ledger_events where seq = 3");
    expect((await verifyLedger(tdb.db)).broken).toEqual({ seq: 3, problem: expect.stringMatching(/event #3 is missing/) });
  });

  it("catches rows appended without moving the chain head", async () => {
    const fresh = await createTestDatabase(backend);
    try {
      const agent = await createAgent(fresh.db, { name: "solo", kind: "agent", writeScopes: ["shared"] });
      await claimAndRecord(fresh.db, { agentId: agent.id, name: "solo" }, { action: "a", target: "1", evidence: "https://a.example/1" });
      await tamper(fresh.db, "update ledger_chain_head set last_seq = 0, last_hash = repeat('0', 64)");
      expect((await verifyLedger(fresh.db)).broken?.problem).toMatch(/2 event\(s\) after the chain head/);
    } finally {
      await fresh.drop();
    }
  });
});
