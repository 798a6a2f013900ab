// The database goes away under a write load. The shared Postgres server is not
// restarted (other test files use it); instead the service's connections are
// terminated (what a restart does to them) and, for an outage, the test
// database refuses new connections until it is "back".
//
// What must hold: calls fail fast with a clear, retryable message (never a hang
// or a crash), /readyz says 503 while the database is away, the service recovers
// by itself, and what clients were told matches the database exactly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyDatabaseError } from "../../src/db/core/classify.js";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { describeLoad, failureMessages, reconcile, startWriteLoad, type WriteAttempt } from "./load.js";
import { adminQuery, assertAlive, callTool, directClient, httpStatus, type Replica, startReplica, stopAllReplicas, terminateServiceBackends, until } from "./support.js";

const CONNECT_TIMEOUT_MS = 1000;
// "Fails fast": well under the client's patience, whatever the machine's load.
const FAIL_FAST_BOUND_MS = CONNECT_TIMEOUT_MS + 5000;

let tdb: TestDatabase;
let replica: Replica;
let writers: TestAgent[];

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  writers = [];
  for (let i = 0; i < 6; i++) writers.push(await addAgent(tdb.db, `writer-${i}`));
  replica = await startReplica(tdb.url!, { DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_POOL_MAX: "4" });
});
afterAll(async () => {
  await adminQuery(`alter database ${tdb.name} with allow_connections true`).catch(() => undefined);
  await stopAllReplicas();
});

const ok = (a: WriteAttempt) => a.outcome.kind === "ok";
const perWriter = (attempts: WriteAttempt[], filter: (a: WriteAttempt) => boolean) =>
  writers.map((w) => attempts.filter((a) => a.agent === w.name && filter(a)).length);

const diagnose = (attempts: WriteAttempt[]) => `${describeLoad(attempts)}\nservice output: ${replica.process.stdout().slice(-1500)}`;
/** A load probe that gives up at once if the service died. */
const whileAlive = (probe: () => boolean) => async () => {
  assertAlive(replica);
  return probe();
};

async function expectEveryWriterCanWrite(prefix: string): Promise<void> {
  for (const w of writers) {
    const outcome = await callTool(replica.mcpUrl, w.token, "memory_store", { name: `${prefix}-${w.name}`, description: "after", type: "project", body: "b" });
    expect(outcome.kind, JSON.stringify(outcome)).toBe("ok");
  }
}

function expectCleanFailures(attempts: WriteAttempt[]): void {
  for (const message of failureMessages(attempts)) {
    // Every failure names the cause and says to retry; none is an internal error.
    expect(message).toMatch(/unreachable|retry/i);
    expect(message).not.toMatch(/Internal (server )?error/i);
  }
}

describe("database connections terminated under a write load", () => {
  it("loses no acknowledged write, keeps no refused one, and recovers by itself", async () => {
    const load = startWriteLoad(writers, () => replica.mcpUrl, "t");
    let terminated = 0;
    for (let round = 0; round < 12; round++) {
      // Terminate only once writes are flowing again, so every round hits a live load.
      const before = load.count(ok);
      await until("acknowledged writes between terminations", whileAlive(() => load.count(ok) >= before + writers.length), 30_000, 25, () => diagnose(load.attempts));
      terminated += await terminateServiceBackends(tdb.name);
    }
    const attempts = await load.stop();
    expect(terminated).toBeGreaterThan(0);

    await expectEveryWriterCanWrite("after-terminations");
    const r = await reconcile(tdb.db, attempts);
    expect({ lost: r.lost, phantom: r.phantom, partial: r.partial, unanswered: r.unanswered }).toEqual({ lost: [], phantom: [], partial: [], unanswered: 0 });
    expect(r.acknowledged).toBeGreaterThanOrEqual(12 * writers.length);
    expectCleanFailures(attempts);
    for (const a of attempts) expect(a.ms).toBeLessThan(FAIL_FAST_BOUND_MS);
  });
});

describe("database outage (the database refuses connections)", () => {
  it("answers 503 fast and /readyz 503 during the outage, then recovers by itself with nothing lost", async () => {
    const load = startWriteLoad(writers, () => replica.mcpUrl, "o");
    await until("writes before the outage", whileAlive(() => perWriter(load.attempts, ok).every((n) => n >= 2)), 30_000, 25, () => diagnose(load.attempts));

    let outageFrom = 0;
    await adminQuery(`alter database ${tdb.name} with allow_connections false`);
    try {
      await terminateServiceBackends(tdb.name);
      outageFrom = Date.now();
      const duringOutage = (a: WriteAttempt) => a.startedAt >= outageFrom;
      await until("every writer told of the outage", whileAlive(() => perWriter(load.attempts, (a) => duringOutage(a) && !ok(a)).every((n) => n >= 3)));

      const ready = await fetch(`${replica.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: "unavailable", reason: "database unreachable" });
      expect(await httpStatus(`${replica.url}/healthz`)).toBe(200);

      // Nothing succeeds while the database is away, and nothing waits long to say so.
      const outage = load.attempts.filter(duringOutage);
      expect(outage.filter(ok)).toEqual([]);
      for (const a of outage) expect(a.ms).toBeLessThan(FAIL_FAST_BOUND_MS);
      const refusal = outage.find((a) => a.outcome.kind === "http");
      expect(refusal?.outcome).toMatchObject({ kind: "http", status: 503, retryAfter: expect.stringMatching(/^\d+$/) });

      // A call whose token check still got a connection but whose own query did
      // not meets this error: it must read "unreachable, retry", not "internal error".
      const connectError = await directClient(tdb.url!).then(
        (c) => c.end().then(() => undefined),
        (error: unknown) => error,
      );
      expect(classifyDatabaseError(connectError)).toMatchObject({ code: "unavailable", retryable: true });
    } finally {
      await adminQuery(`alter database ${tdb.name} with allow_connections true`);
    }

    await until("/readyz 200 again", async () => (await httpStatus(`${replica.url}/readyz`)) === 200);
    const restoredAt = Date.now();
    await until("writes after the outage", whileAlive(() => perWriter(load.attempts, (a) => a.startedAt >= restoredAt && ok(a)).every((n) => n >= 2)));
    const attempts = await load.stop();

    const r = await reconcile(tdb.db, attempts);
    expect({ lost: r.lost, phantom: r.phantom, partial: r.partial, unanswered: r.unanswered }).toEqual({ lost: [], phantom: [], partial: [], unanswered: 0 });
    expect(r.failed).toBeGreaterThanOrEqual(3 * writers.length);
    expectCleanFailures(attempts);
    await expectEveryWriterCanWrite("after-outage");

    const verify = await runCli(["ledger", "verify", "--json"], { DATABASE_URL: tdb.url });
    expect(verify.code).toBe(0);
    expect(onlyJson(verify)).toMatchObject({ ok: true });
  });
});
