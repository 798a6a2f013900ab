// The database's unhappy paths, on real clusters made by the test (a primary and
// a streaming standby): a primary that freezes instead of failing, with two
// service processes writing through it; the old primary coming back writable
// after the failover; a read replica that freezes; the only synchronous standby
// stopping. What must hold: no call waits past its deadline (the statement
// timeout and a margin, here 3 s + 2 s), writes come back within 15 s of the
// promotion, nothing acknowledged is lost, the stale primary is never used, and
// every request the database cannot serve gets the same retryable answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEADLINE_MARGIN_MS } from "../../src/db/postgres/deadline.js";
import type { Database } from "../../src/db/core/database.js";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createPair, type Pair } from "../support/clusters.js";
import { TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { describeLoad, reconcile, startWriteLoad, type WriteAttempt } from "./load.js";
import { assertAlive, callTool, httpStatus, type Replica, startReplica, stopAllReplicas, until } from "./support.js";

const STATEMENT_TIMEOUT_MS = 3_000;
const CONNECT_TIMEOUT_MS = 1_000;
const SERVICE_ENV = { DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), DB_POOL_MAX: "4" };
/** The longest a call may wait: its deadline, a search of the host list (a connect timeout and a probe's deadline), and a second of slack for a loaded machine. */
const CALL_BOUND_MS = STATEMENT_TIMEOUT_MS + DEADLINE_MARGIN_MS + 2 * CONNECT_TIMEOUT_MS + DEADLINE_MARGIN_MS + 1_000;
const BACK_WITHIN_MS = 15_000;

const ok = (a: WriteAttempt) => a.outcome.kind === "ok";

async function migrated(url: string, agents: string[]): Promise<TestAgent[]> {
  const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: url, poolMax: 2, connectTimeoutMs: 5000 });
  try {
    await migrate(db);
    const made = [];
    for (const name of agents) made.push(await addAgent(db, name, { scopes: ["shared"] }));
    return made;
  } finally {
    await db.close();
  }
}

async function onNode(url: string, work: (db: Database) => Promise<void>): Promise<void> {
  const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: url, poolMax: 1, connectTimeoutMs: 5000 });
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

describe("a primary that freezes, with two service processes", () => {
  let pair: Pair;
  let services: Replica[];
  let writers: TestAgent[];

  beforeAll(async () => {
    pair = await createPair();
    await pair.makeSynchronous();
    writers = await migrated(pair.primary.url, ["writer-0", "writer-1", "writer-2", "writer-3"]);
    services = [await startReplica(pair.multiHostUrl, SERVICE_ENV), await startReplica(pair.multiHostUrl, SERVICE_ENV)];
  });
  afterAll(async () => {
    await stopAllReplicas();
    await pair?.primary.thaw().catch(() => undefined);
    await pair?.destroy();
  });

  it("follows it to the promoted standby: writes back within 15 s, none waits past its deadline, every acknowledged write kept", async () => {
    // Each writer alternates between the two service processes.
    const load = startWriteLoad(writers, (_i, n) => services[n % 2]!.mcpUrl, "z");
    const diagnose = () => `${describeLoad(load.attempts)}\n${services.map((s) => s.process.stderr().slice(-800)).join("\n")}`;
    const alive = () => services.forEach(assertAlive);
    const perWriter = (filter: (a: WriteAttempt) => boolean) => writers.map((w) => load.attempts.filter((a) => a.agent === w.name && filter(a)).length);
    await until("writes before the freeze", async () => (alive(), perWriter(ok).every((n) => n >= 3)), 30_000, 25, diagnose);

    const freezing = Date.now();
    await pair.primary.freeze();
    // From here on nothing can commit on the old primary.
    const frozenAt = Date.now();
    await pair.promote();
    const promotedAt = Date.now();
    // The load's n-th call of a writer went to process n % 2 (its key ends in n).
    const processOf = (a: WriteAttempt) => Number(a.key.split("-").at(-1)) % 2;
    await until("writes on the new primary, through both processes", async () => {
      alive();
      const after = load.attempts.filter((a) => a.startedAt >= promotedAt && ok(a));
      return perWriter((a) => a.startedAt >= promotedAt && ok(a)).every((n) => n >= 2) && [0, 1].every((p) => after.some((a) => processOf(a) === p));
    }, 60_000, 25, diagnose);
    const attempts = await load.stop();

    const firstSuccess = attempts.filter((a) => a.startedAt >= frozenAt && ok(a)).map((a) => a.startedAt + a.ms).sort((x, y) => x - y)[0]!;
    const waits = attempts.map((a) => a.ms);
    for (const a of attempts) expect(a.ms, `${a.kind} ${a.key}: ${JSON.stringify(a.outcome).slice(0, 300)}`).toBeLessThan(CALL_BOUND_MS);
    expect(firstSuccess - promotedAt, diagnose()).toBeLessThan(BACK_WITHIN_MS);
    // One kind of failure: 503 with Retry-After, saying what to do.
    const failed = attempts.filter((a) => a.startedAt + a.ms >= freezing && !ok(a));
    for (const a of failed) {
      expect(a.outcome, `${a.kind} ${a.key}`).toMatchObject({ kind: "http", status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
      expect((a.outcome as { body: string }).body).toMatch(/unreachable|stopped answering|changing its primary|accepts a target_session_attrs/);
    }

    let counts = { acknowledged: 0, failed: failed.length };
    await onNode(pair.standby.url, async (db) => {
      const r = await reconcile(db, attempts);
      // A write in flight when the primary froze may be on the synchronous standby though its
      // caller heard 503: those were told "may or may not have been written".
      const mayHave = new Set(
        attempts
          .filter((a) => (a.startedAt <= frozenAt && a.startedAt + a.ms >= freezing) || (a.outcome.kind === "http" && /may or may not/.test(a.outcome.body)))
          .map((a) => `${a.kind}:${a.key}`),
      );
      const phantom = r.phantom.filter((p) => !mayHave.has(p.split(" ")[0]!));
      expect({ lost: r.lost, phantom, partial: r.partial, unanswered: r.unanswered }, describeLoad(attempts)).toEqual({ lost: [], phantom: [], partial: [], unanswered: 0 });
      counts = { acknowledged: r.acknowledged, failed: failed.length };
      expect(r.acknowledged).toBeGreaterThanOrEqual(5 * writers.length);
    });
    console.info(
      `frozen primary: first write ${firstSuccess - promotedAt} ms after the promotion (${firstSuccess - frozenAt} ms after the freeze); ` +
        `${counts.acknowledged} writes acknowledged and present, ${counts.failed} answered 503; longest wait ${Math.max(...waits)} ms`,
    );
  });

  it("never uses the old primary when it comes back writable, and says so", async () => {
    // The old primary answers again: a writable primary on the timeline before the promotion.
    await pair.primary.thaw();
    await until("the old primary answers", async () => (await pair.primary.query<{ r: boolean }>("select pg_is_in_recovery() as r"))[0]!.r === false);
    const oldFirst = `postgres://postgres@127.0.0.1:${pair.primary.port},127.0.0.1:${pair.standby.port}/agent_memory?target_session_attrs=read-write`;
    const late = await startReplica(oldFirst, SERVICE_ENV);
    for (const [i, service] of [...services, late].entries()) {
      const stored = await callTool(service.mcpUrl, writers[0]!.token, "memory_store", { name: `after-return-${i}`, description: "stored after the old primary came back", type: "project", body: "b" });
      expect(stored.kind, JSON.stringify(stored)).toBe("ok");
    }
    const names = async (node: typeof pair.primary) => (await node.query<{ name: string }>("select name from facts where name like 'after-return-%' order by name")).map((r) => r.name);
    expect(await names(pair.standby)).toEqual(["after-return-0", "after-return-1", "after-return-2"]);
    expect(await names(pair.primary)).toEqual([]);

    const ready = (await (await fetch(`${late.url}/readyz`)).json()) as { status: string; stalePrimaries?: string[] };
    expect(ready).toMatchObject({ status: "ready", stalePrimaries: [`127.0.0.1:${pair.primary.port}`] });
    const metrics = await (await fetch(`${late.url}/metrics`)).text();
    expect(metrics).toContain(`agent_memory_db_stale_primary{host="127.0.0.1:${pair.primary.port}"} 1`);
    expect(late.process.stderr() + late.process.stdout()).toMatch(/old primary that accepts writes beside the current one/);
  });
});

describe("a standby that freezes, then the only synchronous standby stopping", () => {
  let pair: Pair;
  let service: Replica;
  let agents: TestAgent[];

  beforeAll(async () => {
    pair = await createPair();
    agents = await migrated(pair.primary.url, ["reader-0", "reader-1", "reader-2", "writer"]);
    service = await startReplica(pair.primary.url, { ...SERVICE_ENV, DATABASE_READ_URL: pair.standby.url, DATABASE_READ_MAX_LAG_MS: "60000" });
    const stored = await callTool(service.mcpUrl, agents[3]!.token, "memory_store", { name: "freeze-drill", description: "Drill for a frozen replica", type: "project", body: "b" });
    expect(stored.kind).toBe("ok");
  });
  afterAll(async () => {
    await stopAllReplicas();
    await pair?.standby.thaw().catch(() => undefined);
    await pair?.destroy();
  });

  const replicaReads = async () => Number(/agent_memory_db_reads_total\{target="replica"\} (\d+)/.exec(await (await fetch(`${service.url}/metrics`)).text())?.[1] ?? 0);

  it("a frozen read replica: no read waits past its deadline, and reads go on on the primary", async () => {
    const before = await replicaReads();
    await until("reads served by the replica", async () => {
      await callTool(service.mcpUrl, agents[0]!.token, "memory_recall", { keywords: ["drill"] });
      return (await replicaReads()) > before;
    });
    await pair.standby.freeze();
    const frozenAt = Date.now();
    const waits: number[] = [];
    const outcomes: string[] = [];
    await Promise.all(
      agents.slice(0, 3).map(async (agent) => {
        while (Date.now() - frozenAt < 8_000) {
          const started = Date.now();
          const outcome = await callTool(service.mcpUrl, agent.token, "memory_recall", { keywords: ["drill"] });
          waits.push(Date.now() - started);
          outcomes.push(outcome.kind);
        }
      }),
    );
    await pair.standby.thaw();
    expect(Math.max(...waits), `waits ${waits.join(", ")}`).toBeLessThan(STATEMENT_TIMEOUT_MS + DEADLINE_MARGIN_MS + 1_000);
    // After the first second of silence, reads are served (by the primary).
    expect(outcomes.slice(-5)).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    console.info(`frozen replica: ${waits.length} reads in 8 s, longest ${Math.max(...waits)} ms; ${outcomes.filter((o) => o !== "ok").length} not ok`);
  });

  it("the only synchronous standby stopped: a write answers within its deadline, /readyz says degraded, and it commits when the standby is back", async () => {
    await pair.makeSynchronous();
    await pair.standby.stop("fast");
    const started = Date.now();
    const stored = await callTool(service.mcpUrl, agents[3]!.token, "memory_store", { name: "written-without-standby", description: "Stored while the standby is away", type: "project", body: "b" });
    const waited = Date.now() - started;
    expect(waited).toBeLessThan(STATEMENT_TIMEOUT_MS + DEADLINE_MARGIN_MS + 1_000);
    expect(stored).toMatchObject({ kind: "http", status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    expect((stored as { body: string }).body).toMatch(/may or may not have been written.*memory_get/);

    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "degraded", writes: "degraded" });
    expect(await (await fetch(`${service.url}/metrics`)).text()).toMatch(/^agent_memory_db_writes_degraded 1$/m);

    await pair.standby.start();
    await until("/readyz ready again", async () => (await httpStatus(`${service.url}/readyz`)) === 200, 30_000);
    const found = await callTool(service.mcpUrl, agents[3]!.token, "memory_get", { name: "written-without-standby" });
    expect(found.kind, JSON.stringify(found)).toBe("ok");
    console.info(`lost synchronous standby: the write answered 503 after ${waited} ms and was committed when the standby came back`);
  });
});
