// A primary failover under a write load, on real clusters made by the test: a
// primary with a synchronous streaming standby, the service given both through
// libpq's multi-host DATABASE_URL (target_session_attrs=read-write). The
// primary is stopped as a crash would stop it (-m immediate) and the standby is
// promoted. What must hold: the service finds the new primary by itself (no
// restart), calls fail as retryable meanwhile and none hangs, and every
// acknowledged write is on the new primary, whole, with the ledger's chain intact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyDatabaseError } from "../../src/db/core/classify.js";
import type { Database } from "../../src/db/core/database.js";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { onlyJson, runCli } from "../support/cli.js";
import { createPair, type Pair } from "../support/clusters.js";
import { TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { describeLoad, failureMessages, reconcile, startWriteLoad, type WriteAttempt } from "./load.js";
import { assertAlive, callTool, httpStatus, type Replica, startReplica, stopAllReplicas, until } from "./support.js";

const CONNECT_TIMEOUT_MS = 1000;
/** What the issue asks: calls succeed again this soon after the promotion, and no call waits longer than the hang bound. */
const BACK_WITHIN_MS = 15_000;
const HANG_BOUND_MS = 30_000;

let pair: Pair;
let primaryDb: Database;
let replica: Replica;
let writers: TestAgent[];

beforeAll(async () => {
  pair = await createPair();
  await pair.makeSynchronous();
  primaryDb = openPostgres({ ...TEST_TIMEOUTS, connectionString: pair.primary.url, poolMax: 2, connectTimeoutMs: 5000 });
  await migrate(primaryDb);
  writers = [];
  for (let i = 0; i < 4; i++) writers.push(await addAgent(primaryDb, `writer-${i}`));
  await primaryDb.close();
  replica = await startReplica(pair.multiHostUrl, { DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_POOL_MAX: "4" });
});
afterAll(async () => {
  await stopAllReplicas();
  await pair?.destroy();
});

const ok = (a: WriteAttempt) => a.outcome.kind === "ok";

describe("a multi-host DATABASE_URL", () => {
  it("connects to the writable host whatever its place in the list", async () => {
    const standbyFirst = `postgres://postgres@127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}/agent_memory?target_session_attrs=read-write`;
    const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: standbyFirst, poolMax: 1, connectTimeoutMs: 5000 });
    try {
      const { rows } = await db.query<{ in_recovery: boolean; port: number }>("select pg_is_in_recovery() as in_recovery, inet_server_port() as port");
      expect(rows[0]).toEqual({ in_recovery: false, port: pair.primary.port });
      await db.transaction((tx) => tx.query("create temporary table written_here (x int)"));
    } finally {
      await db.close();
    }
  });

  it("refuses, as retryable and naming each host's state, when no listed host fits; standby picks the standby", async () => {
    const onlyStandby = `postgres://postgres@127.0.0.1:${pair.standby.port}/agent_memory?target_session_attrs=read-write`;
    const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: onlyStandby, poolMax: 1, connectTimeoutMs: 5000 });
    try {
      const error = await db.query("select 1").then(() => undefined, (e: unknown) => e);
      expect(String(error)).toContain(`No host in DATABASE_URL accepts a target_session_attrs=read-write session right now: 127.0.0.1:${pair.standby.port} is a standby (in recovery).`);
      expect(classifyDatabaseError(error)).toMatchObject({ code: "unavailable", retryable: true });
    } finally {
      await db.close();
    }
    const standbyWanted = `postgres://postgres@127.0.0.1:${pair.primary.port},127.0.0.1:${pair.standby.port}/agent_memory?target_session_attrs=standby`;
    const reader = openPostgres({ ...TEST_TIMEOUTS, connectionString: standbyWanted, poolMax: 1, connectTimeoutMs: 5000 });
    try {
      expect((await reader.query<{ port: number }>("select inet_server_port() as port")).rows[0]!.port).toBe(pair.standby.port);
    } finally {
      await reader.close();
    }
  });

  it("follows a failover without a restart: acknowledged writes kept, calls back within 15 s, none hangs", async () => {
    const load = startWriteLoad(writers, () => replica.mcpUrl, "f");
    const diagnose = () => `${describeLoad(load.attempts)}\nservice output: ${replica.process.stdout().slice(-1500)}`;
    const perWriter = (filter: (a: WriteAttempt) => boolean) => writers.map((w) => load.attempts.filter((a) => a.agent === w.name && filter(a)).length);
    await until("writes before the failover", async () => (assertAlive(replica), perWriter(ok).every((n) => n >= 3)), 30_000, 25, diagnose);

    const crashedAt = Date.now();
    await pair.primary.stop("immediate");
    const stoppedAt = Date.now();
    // No writable host: not ready, and saying so at once.
    await until("/readyz 503 without a primary", async () => (await httpStatus(`${replica.url}/readyz`)) === 503, HANG_BOUND_MS, 25, diagnose);
    await pair.promote();
    const promotedAt = Date.now();
    await until("writes on the new primary", async () => (assertAlive(replica), perWriter((a) => a.startedAt >= promotedAt && ok(a)).every((n) => n >= 2)), HANG_BOUND_MS, 25, diagnose);
    const attempts = await load.stop();

    const firstSuccess = attempts.filter((a) => a.startedAt >= stoppedAt && ok(a)).map((a) => a.startedAt + a.ms).sort((x, y) => x - y)[0]!;
    expect(firstSuccess - promotedAt).toBeLessThan(BACK_WITHIN_MS);
    for (const a of attempts) expect(a.ms, `${a.kind} ${a.key}`).toBeLessThan(HANG_BOUND_MS);
    // Failures during the failover say what they are and that a retry is safe.
    for (const message of failureMessages(attempts)) {
      expect(message).toMatch(/unreachable|changing its primary|accepts a target_session_attrs|retry/i);
      expect(message).not.toMatch(/Internal (server )?error/i);
    }

    const newPrimary = openPostgres({ ...TEST_TIMEOUTS, connectionString: pair.standby.url, poolMax: 2, connectTimeoutMs: 5000 });
    try {
      const r = await reconcile(newPrimary, attempts);
      // A write whose commit was under way when the primary crashed may have
      // reached the synchronous standby although its caller was told it failed:
      // the caller cannot know, as with any database crash. Only those may be there.
      const inFlightAtCrash = new Set(attempts.filter((a) => a.startedAt <= stoppedAt && a.startedAt + a.ms >= crashedAt).map((a) => `${a.kind}:${a.key}`));
      const phantom = r.phantom.filter((p) => !inFlightAtCrash.has(p.split(" ")[0]!));
      expect({ lost: r.lost, phantom, partial: r.partial, unanswered: r.unanswered }, describeLoad(attempts)).toEqual({ lost: [], phantom: [], partial: [], unanswered: 0 });
      expect(r.acknowledged).toBeGreaterThanOrEqual(5 * writers.length);
    } finally {
      await newPrimary.close();
    }

    const verify = await runCli(["ledger", "verify", "--json"], { DATABASE_URL: pair.multiHostUrl });
    expect(verify.code, verify.stderr).toBe(0);
    expect(onlyJson(verify)).toMatchObject({ ok: true });
    expect(await httpStatus(`${replica.url}/readyz`)).toBe(200);
    const after = await callTool(replica.mcpUrl, writers[0]!.token, "memory_store", { name: "after-failover", description: "after", type: "project", body: "b" });
    expect(after.kind, JSON.stringify(after)).toBe("ok");
    console.info(`failover: first success ${firstSuccess - promotedAt} ms after the promotion (${firstSuccess - crashedAt} ms after the crash); ${attempts.filter(ok).length} writes acknowledged and present`);
  });
});
