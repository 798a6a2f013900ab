// One of two replicas is killed with SIGKILL in the middle of a write load (no
// shutdown, no goodbye: its in-flight transactions die with their sockets) and
// started again. The other replica keeps serving throughout. Afterwards every
// acknowledged write is there, nothing is half-written, the ledger chain
// verifies, no transaction or lock of the dead process lingers, and a claim
// the dead process's client held ends with its lease: another agent takes over.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { describeLoad, reconcile, startWriteLoad, type WriteAttempt } from "./load.js";
import { adminQuery, assertAlive, callToolOk, callTool, type Replica, startReplica, stopAllReplicas, until } from "./support.js";

const CLAIM_TTL_SECONDS = 10; // the shortest lease ledger_claim allows

let tdb: TestDatabase;
const replicas: Replica[] = [];
let writers: TestAgent[];

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  writers = [];
  for (let i = 0; i < 6; i++) writers.push(await addAgent(tdb.db, `writer-${i}`));
  replicas.push(...(await Promise.all([startReplica(tdb.url!), startReplica(tdb.url!)])));
});
afterAll(async () => {
  await stopAllReplicas();
});

const ok = (a: WriteAttempt) => a.outcome.kind === "ok";
/** Writers 0, 2, 4 use replica 0 (the one killed); 1, 3, 5 replica 1. */
const replicaOf = (writer: number) => writer % 2;
const acksSince = (attempts: WriteAttempt[], since: number, replica: number) =>
  writers.filter((_, i) => replicaOf(i) === replica).map((w) => attempts.filter((a) => a.agent === w.name && a.startedAt >= since && ok(a)).length);

describe("a replica killed with SIGKILL under a write load", () => {
  it("loses no acknowledged write, leaves nothing half-done, and its clients' claims end with their lease", async () => {
    // A claim taken through the replica about to die, never recorded or released.
    const holder = writers[0]!;
    const contested = { action: "deploy-prod", target: "orphaned-release" };
    const claim = await callToolOk<{ claim: { expiresAt: string; claimedAt: string } }>(replicas[0]!.mcpUrl, holder.token, "ledger_claim", {
      ...contested,
      ttl_seconds: CLAIM_TTL_SECONDS,
    });

    const load = startWriteLoad(writers, (i) => replicas[replicaOf(i)]!.mcpUrl, "k");
    const diagnose = () => describeLoad(load.attempts);
    const start = Date.now();
    await until("writes through both replicas", async () => [0, 1].every((r) => acksSince(load.attempts, start, r).every((n) => n >= 3)), 30_000, 25, diagnose);

    const victim = replicas[0]!;
    expect(await victim.stop("SIGKILL")).toBeNull();
    const killedAt = Date.now();

    // The survivor is unaffected: its writers keep being acknowledged meanwhile.
    await until(
      "writes through the surviving replica",
      async () => {
        assertAlive(replicas[1]!);
        return acksSince(load.attempts, killedAt, 1).every((n) => n >= 3);
      },
      30_000,
      25,
      diagnose,
    );
    // The dead process's connections go away with it: no transaction left open, no lock held.
    await until("no transaction left open by the dead process", async () => {
      const rows = await adminQuery<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = $1 and state like 'idle in transaction%'`,
        [tdb.name],
      );
      return rows[0]!.n === 0;
    });

    replicas[0] = await startReplica(tdb.url!);
    const restartedAt = Date.now();
    await until("writes through the restarted replica", async () => acksSince(load.attempts, restartedAt, 0).every((n) => n >= 3), 30_000, 25, diagnose);
    const attempts = await load.stop();

    const r = await reconcile(tdb.db, attempts);
    expect({ lost: r.lost, phantom: r.phantom, partial: r.partial }).toEqual({ lost: [], phantom: [], partial: [] });
    // Calls cut off by the kill got no answer; each of them is wholly there or wholly absent (checked above).
    expect(r.unanswered).toBeGreaterThan(0);

    const verify = await runCli(["ledger", "verify", "--json"], { DATABASE_URL: tdb.url });
    expect(verify.code).toBe(0);
    expect(onlyJson(verify)).toMatchObject({ ok: true });

    // Every claim is a lease of at most its ttl, whoever held it and whatever became of them.
    const leases = await tdb.db.query<{ n: number }>(
      "select count(*)::int as n from ledger_claims where expires_at > claimed_at + make_interval(secs => $1::int)",
      [CLAIM_TTL_SECONDS],
    );
    expect(leases.rows[0]!.n).toBe(0);

    // The orphaned claim blocks others until its lease ends, then another agent takes it over.
    const rival = writers[1]!;
    const early = await callTool(replicas[1]!.mcpUrl, rival.token, "ledger_claim", contested);
    if (Date.now() < Date.parse(claim.claim.expiresAt) - 1000) {
      expect(early).toMatchObject({ kind: "refused", text: expect.stringContaining(`claimed by ${holder.name} until ${claim.claim.expiresAt}`) });
    }
    // On a slow machine the lease may already have ended at the early call, which then took it over.
    const earlyTakeover = early.kind === "ok" ? (early.result.structuredContent as { event: string; previousHolder: string }) : undefined;
    const takeover = earlyTakeover ?? await until(
      "the orphaned claim's lease to end",
      async () => {
        const o = await callTool(replicas[1]!.mcpUrl, rival.token, "ledger_claim", contested);
        return o.kind === "ok" ? (o.result.structuredContent as { event: string; previousHolder: string }) : undefined;
      },
      (CLAIM_TTL_SECONDS + 20) * 1000,
      250,
    );
    expect(takeover).toMatchObject({ event: "taken_over", previousHolder: holder.name });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(claim.claim.expiresAt));
  });
});
