// Who may write the ledger: per-action scopes, the open-claim quota, and the
// operator's void, on both backends.
import { createSecretGuard } from "../../src/secrets/guard.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, setAgentScopes } from "../../src/auth/store.js";
import { DomainError } from "../../src/errors.js";
import { setActionScope, unsetActionScope } from "../../src/ledger/actions.js";
import { exportLedger, verifyLedger } from "../../src/ledger/audit.js";
import { eventJson, type LedgerEvent } from "../../src/ledger/event.js";
import { type Actor, checkLedger, claimLedger, recordLedger, releaseLedger, voidLedger } from "../../src/ledger/store.js";
import { listLedger } from "../../src/ledger/list.js";
import { importSnapshot } from "../../src/snapshots/import.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { claimAndRecord } from "./support.js";

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

const evidence = (n: string) => `https://ci.example.com/runs/${n}`;

describe.each(BACKENDS)("ledger write permission on %s", (backend) => {
  let tdb: TestDatabase;
  let outsider: Actor;
  let writer: Actor;
  let deployer: Actor;
  let operator: Actor;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    const actor = async (name: string, kind: "agent" | "human", writeScopes: string[]) => {
      const a = await createAgent(tdb.db, { name, kind, writeScopes });
      return { agentId: a.id, name: a.name };
    };
    outsider = await actor("outsider", "agent", ["unrelated"]);
    writer = await actor("writer", "agent", ["shared"]);
    deployer = await actor("deployer", "agent", ["shared", "deploy"]);
    operator = await actor("operator", "human", ["*"]);
  });

  it("moving an action to another scope does not strand a live claim: its holder may still record or release it, no one else may claim", async () => {
    // writer holds two claims of move_me (default scope "shared"); then the operator moves the action to "deploy".
    const first = { action: "move_me", target: "t1" };
    const second = { action: "move_me", target: "t2" };
    await claimLedger(tdb.db, writer, first);
    await claimLedger(tdb.db, writer, second);
    await setActionScope(tdb.db, { action: "move_me", scope: "deploy", setBy: "operator" });
    try {
      // The operation ran: its holder records it; the other it gives up.
      expect((await recordLedger(tdb.db, writer, { ...first, evidence: evidence("moved") })).record.actor).toBe("writer");
      expect((await releaseLedger(tdb.db, writer, { ...second, reason: "not needed after the move" })).released.holder).toBe("writer");
      // Without a claim the new scope decides: writer may no longer claim it, deployer may.
      expect((await refusal(claimLedger(tdb.db, writer, second))).code).toBe("forbidden");
      expect((await refusal(recordLedger(tdb.db, writer, { action: "move_me", target: "t3", evidence: evidence("none") }))).code).toBe("forbidden");
      expect((await claimLedger(tdb.db, deployer, second)).claim.holder).toBe("deployer");
    } finally {
      await unsetActionScope(tdb.db, "move_me", "shared");
    }
  });

  it("an agent without write access to an action's scope can neither claim, record nor release it; nothing is written", async () => {
    const key = { action: "publish_post", target: "outsider-1" };
    const before = await verifyLedger(tdb.db);
    for (const attempt of [
      () => claimLedger(tdb.db, outsider, key),
      () => recordLedger(tdb.db, outsider, { ...key, evidence: evidence("forged") }),
      () => releaseLedger(tdb.db, outsider, { ...key, reason: "x" }),
    ]) {
      const e = await refusal(attempt());
      expect(e.code).toBe("forbidden");
      expect(e.message).toMatch(/^Refused: publish_post belongs to scope "shared", and you \(outsider\) may not write to it/);
    }
    expect((await verifyLedger(tdb.db)).rows).toBe(before.rows);
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    // Reads stay open: anyone may check what was done.
    expect((await listLedger(tdb.db, { action: "publish_post" })).events).toEqual([]);
  });

  it("a mapped action needs its own scope; unmapping returns it to the default scope", async () => {
    await setActionScope(tdb.db, { action: "deploy_prod", scope: "deploy", setBy: "test" });
    const key = { action: "deploy_prod", target: "v1" };
    expect((await refusal(claimLedger(tdb.db, writer, key))).message).toMatch(/belongs to scope "deploy"/);
    expect((await claimLedger(tdb.db, deployer, key)).kind).toBe("claimed");
    expect((await recordLedger(tdb.db, deployer, { ...key, evidence: evidence("v1") })).idempotent).toBe(false);
    // The permission is read from the agent as stored: losing the scope applies at once.
    await setAgentScopes(tdb.db, "deployer", ["shared"], []);
    expect((await refusal(claimLedger(tdb.db, deployer, { ...key, target: "v2" }))).code).toBe("forbidden");
    await setAgentScopes(tdb.db, "deployer", ["shared", "deploy"], []);
    await unsetActionScope(tdb.db, "deploy_prod", "shared");
    expect((await claimLedger(tdb.db, writer, { ...key, target: "v2" })).kind).toBe("claimed");
  });

  it("LEDGER_DEFAULT_SCOPE decides the scope of unmapped actions", async () => {
    const strict = { defaultScope: "ops", maxOpenClaimsPerAgent: 100 };
    expect((await refusal(claimLedger(tdb.db, writer, { action: "rotate_keys", target: "k1" }, strict))).message).toMatch(/belongs to scope "ops"/);
    expect((await claimLedger(tdb.db, operator, { action: "rotate_keys", target: "k1" }, strict)).kind).toBe("claimed");
  });

  it("caps the open claims of one agent; renewals, expired claims and other agents are not affected", async () => {
    const policy = { defaultScope: "shared", maxOpenClaimsPerAgent: 2 };
    const fresh = await createAgent(tdb.db, { name: "claimer", kind: "agent", writeScopes: ["shared"] });
    const claimer = { agentId: fresh.id, name: fresh.name };
    const m1 = await claimLedger(tdb.db, claimer, { action: "send_mail", target: "m1" }, policy);
    await claimLedger(tdb.db, claimer, { action: "send_mail", target: "m2" }, policy);
    const e = await refusal(claimLedger(tdb.db, claimer, { action: "send_mail", target: "m3" }, policy));
    expect(e.code).toBe("conflict");
    expect(e.message).toMatch(/^Refused: you already hold 2 open claims \(LEDGER_MAX_OPEN_CLAIMS_PER_AGENT\)\. Record or release/);
    expect((await checkLedger(tdb.db, { action: "send_mail", target: "m3" })).status).toBe("NOT_EXECUTED");
    expect((await claimLedger(tdb.db, claimer, { action: "send_mail", target: "m1", claimId: m1.claimId }, policy)).kind).toBe("renewed");
    expect((await claimLedger(tdb.db, writer, { action: "send_mail", target: "m3" }, policy)).kind).toBe("claimed");
    await releaseLedger(tdb.db, claimer, { action: "send_mail", target: "m2", reason: "not needed" }, policy);
    expect((await claimLedger(tdb.db, claimer, { action: "send_mail", target: "m4" }, policy)).kind).toBe("claimed");
  });

  it("an operator voids a forged record: a new event in the chain, the key re-opens, verify passes, export includes it", async () => {
    const key = { action: "publish_post", target: "article-9" };
    const forged = await claimAndRecord(tdb.db, writer, { ...key, evidence: evidence("made-up") });
    expect((await refusal(recordLedger(tdb.db, deployer, { ...key, evidence: evidence("real") }))).message).toMatch(/second record/);

    expect((await refusal(voidLedger(tdb.db, deployer, { ...key, reason: "not mine" }))).message).toMatch(/only a human agent may void/);
    expect((await refusal(voidLedger(tdb.db, operator, { ...key, reason: "  " }))).message).toMatch(/^reason must not be empty/);
    const voided = await voidLedger(tdb.db, operator, { ...key, reason: "writer recorded it without publishing (evidence 404)" });
    expect(voided.voided.record).toMatchObject({ seq: forged.record.seq, actor: "writer" });

    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    await claimLedger(tdb.db, deployer, key);
    const real = await recordLedger(tdb.db, deployer, { ...key, evidence: evidence("real") });
    expect(real.record.actor).toBe("deployer");
    // Exactly once still holds after the void.
    expect((await refusal(recordLedger(tdb.db, writer, { ...key, evidence: evidence("again") }))).message).toMatch(/second record/);

    const report = await verifyLedger(tdb.db);
    expect(report.ok).toBe(true);
    const exported: LedgerEvent[] = [];
    await exportLedger(tdb.db, (e) => void exported.push(e));
    const history = exported.filter((e) => e.action === key.action && e.target === key.target).map((e) => [e.kind, e.actor, e.reason]);
    expect(history).toEqual([
      ["claimed", "writer", null],
      ["executed", "writer", null],
      ["voided", "operator", "writer recorded it without publishing (evidence 404)"],
      ["claimed", "deployer", null],
      ["executed", "deployer", null],
    ]);
    expect((await listLedger(tdb.db, { kind: "voided" })).events).toHaveLength(1);
  });

  it("an operator voids a claim (e.g. one an agent keeps renewing); nothing to void is a clear not_found", async () => {
    const key = { action: "publish_post", target: "article-10" };
    await claimLedger(tdb.db, writer, key);
    const voided = await voidLedger(tdb.db, operator, { ...key, reason: "held for days; released by the operator" });
    expect(voided.voided.claim).toMatchObject({ holder: "writer" });
    expect((await checkLedger(tdb.db, key)).status).toBe("NOT_EXECUTED");
    expect((await claimLedger(tdb.db, deployer, key)).kind).toBe("claimed");
    const none = await refusal(voidLedger(tdb.db, operator, { action: "publish_post", target: "never" , reason: "x" }));
    expect([none.code, none.message]).toEqual(["not_found", `Nothing to void: publish_post for "never" has no record and no claim.`]);
  });

  it("the database keeps exactly-once: a second executed event for a key that was not voided fails", async () => {
    const key = { action: "publish_post", target: "article-11" };
    await claimAndRecord(tdb.db, writer, { ...key, evidence: evidence("a") });
    const { ledger_records: n } = (await tdb.db.query<{ ledger_records: number }>(
      "select count(*)::int as ledger_records from ledger_records where action = $1 and target = $2",
      [key.action, key.target],
    )).rows[0]!;
    expect(n).toBe(1);
    await expect(
      tdb.db.query(
        `insert into ledger_events (seq, kind, action, target, actor_id, actor, at, evidence, prev_hash, hash)
         select h.last_seq + 1, 'executed', $1, $2, $3, 'writer', date_trunc('milliseconds', now()), 'https://x.example', h.last_hash, repeat('a', 64)
           from ledger_chain_head h`,
        [key.action, key.target, writer.agentId],
      ),
    ).rejects.toThrow(/ledger_records_pkey|duplicate key/);
  });

  it("a ledger.jsonl with voided events imports into an empty database and replays to the same state", async () => {
    const lines: string[] = [];
    await exportLedger(tdb.db, (e) => void lines.push(JSON.stringify(eventJson(e))));
    const dir = mkdtempSync(join(tmpdir(), "am-ledger-void-"));
    const target = await createTestDatabase(backend);
    try {
      writeFileSync(join(dir, "ledger.jsonl"), `${lines.join("\n")}\n`);
      for (const name of ["outsider", "writer", "deployer", "claimer"]) await createAgent(target.db, { name, kind: "agent", writeScopes: ["shared"] });
      await createAgent(target.db, { name: "operator", kind: "human", writeScopes: ["*"] });
      const report = await importSnapshot(target.db, { dir, dryRun: false, bodyMaxChars: 16_000, graphTextMaxChars: 2000, secrets: createSecretGuard("refuse") });
      expect(report.ledger?.invalid ?? []).toEqual([]);
      const key = { action: "publish_post", target: "article-9" };
      expect((await checkLedger(target.db, key)).executed).toMatchObject({ actor: "deployer", evidence: evidence("real") });
      expect((await checkLedger(target.db, { action: "publish_post", target: "article-10" })).claim).toMatchObject({ holder: "deployer" });
      expect((await verifyLedger(target.db)).ok).toBe(true);
    } finally {
      await target.drop();
      rmSync(dir, { recursive: true, force: true });
    }
    // A second database (PGlite's start is slow on a loaded machine).
  }, 180_000);
});
