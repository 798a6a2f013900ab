// Per-agent fairness (security review: one agent with 50 requests in flight
// queued every other agent behind its whole backlog). Real Postgres, a real
// service on a real port, real MCP clients. An agent's calls are made slow
// deterministically: they promote a fact whose row this test holds locked, so
// they wait in the database until the test lets go. The assertions are about
// order (which calls finished while which were still pending), never about time.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import type { RunningService } from "../../src/serve.js";
import { createAgent } from "../../src/auth/store.js";
import { createEntities } from "../../src/graph/store.js";
import { EMBEDDED_CONCURRENT_PER_AGENT } from "../../src/http/agent-concurrency.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, MCP_HEADERS, startTestService, type TestAgent, toolCallBody } from "../support/service.js";

let tdb: TestDatabase;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
});

/** Holds the row lock of fact `name` until release() (its own connection, as another writer would). */
async function holdFactLock(name: string): Promise<{ release(): Promise<void> }> {
  const pool = tdb.openPool(1);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = pool.transaction(async (tx) => {
    await tx.query("select 1 from facts where name = $1 for update", [name]);
    locked();
    await released;
  });
  await isLocked;
  return {
    async release() {
      release();
      await done;
      await pool.close();
    },
  };
}

/** Calls that wait on a row lock, as seen from the database. */
async function lockWaiters(db: Database): Promise<number> {
  const r = await db.query<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%for update%'",
  );
  return r.rows[0]!.n;
}

async function waitFor(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const gauge = async (service: RunningService, name: string) => {
  const text = await service.deps.metrics.registry.getSingleMetricAsString(name);
  return Number(/ (\d+)$/m.exec(text)?.[1] ?? 0);
};

describe("one agent's backlog does not hold up the others", () => {
  let service: RunningService;
  let servicePool: Database;
  let flooder: Client;
  let other: Client;
  let flooderAgent: TestAgent;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    // Two connections: without the per-agent limit the flooder's first two calls
    // hold both, and everything else waits in the pool's queue behind its backlog.
    servicePool = tdb.openPool(2);
    service = await startTestService(servicePool, { MCP_CONCURRENT_PER_AGENT: "1" }, (c) => (c.mcpQueuePerAgent = 100));
    const author = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "author")).token);
    await callOk(author, "memory_store", { name: "held-fact", description: "A fact whose row the test keeps locked.", type: "project", body: "Locked by the test." });
    await author.close();
    flooderAgent = await addAgent(tdb.db, "flooder");
    flooder = await connectClient(service.mcpUrl, flooderAgent.token, "flooder");
    other = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "other")).token, "other");
  });
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it("another agent's calls complete while the flooder's 30 slow calls are all pending", async () => {
    const lock = await holdFactLock("held-fact");
    cleanups.push(() => lock.release());
    const settled: string[] = [];
    const FLOOD = 30;
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      flooder
        .callTool({ name: "memory_promote", arguments: { name: "held-fact", to: "confirmed", reason: `flood ${i}` } }, undefined, { timeout: 120_000 })
        .finally(() => settled.push(`flooder ${i}`)),
    );
    // Every flooder call has reached the service: in the database waiting for the
    // lock, in the pool's queue for a connection, or in the flooder's own queue.
    await waitFor("the flood to arrive", async () => (await lockWaiters(tdb.db)) + servicePool.poolStats().waiting + (await gauge(service, "agent_memory_mcp_requests_waiting")) >= FLOOD);

    const mine = [
      callOk(other, "whoami").then(() => settled.push("other whoami")),
      callOk(other, "memory_recall", { keywords: ["locked"] }).then(() => settled.push("other recall")),
      callOk(other, "memory_list", {}).then(() => settled.push("other list")),
    ];
    await Promise.all(mine);
    // All three answered while not one flooder call had finished.
    expect(settled.slice(0, 3).sort()).toEqual(["other list", "other recall", "other whoami"]);
    expect(settled).toHaveLength(3);
    // The flooder's calls are not lost: they run, one at a time, once the lock is gone.
    expect(await gauge(service, "agent_memory_mcp_requests_waiting")).toBe(FLOOD - 1);
    await cleanups.pop()!();
    const results = (await Promise.all(flood)) as CallToolResult[];
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(await gauge(service, "agent_memory_mcp_requests_waiting")).toBe(0);
  });
});

describe("an agent's queue is bounded", () => {
  let service: RunningService;
  let agent: TestAgent;

  beforeAll(async () => {
    service = await startTestService(tdb.openPool(4), { MCP_CONCURRENT_PER_AGENT: "1" }, (c) => (c.mcpQueuePerAgent = 2));
    const author = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "author-2")).token);
    await callOk(author, "memory_store", { name: "held-fact-2", description: "Another locked fact.", type: "project", body: "Locked by the test." });
    await author.close();
    agent = await addAgent(tdb.db, "greedy");
  });

  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(service.mcpUrl, { method: "POST", headers: { ...MCP_HEADERS, Authorization: `Bearer ${agent.token}` }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  const promote = (i: number) => toolCallBody("memory_promote", { name: "held-fact-2", to: "confirmed", reason: `greedy ${i}` }, i);

  it("one runs, two wait, the rest are refused with 429 and Retry-After; the refusals are counted", async () => {
    const lock = await holdFactLock("held-fact-2");
    try {
      const kept = [post(promote(1)), post(promote(2)), post(promote(3))];
      await waitFor("one running and two waiting", async () => (await lockWaiters(tdb.db)) === 1 && (await gauge(service, "agent_memory_mcp_requests_waiting")) === 2);
      const refused = await Promise.all([post(promote(4)), post(promote(5)), post(toolCallBody("whoami", {}, 6))]);
      for (const res of refused) {
        expect(res.status).toBe(429);
        expect(res.headers.get("retry-after")).toBe("1");
        const body = (await res.json()) as { error: { message: string } };
        expect(body.error.message).toMatch(/Too many requests at once from agent "greedy": 1 run at a time and 2 more may wait/);
      }
      const metrics = await service.deps.metrics.registry.getSingleMetricAsString("agent_memory_rate_limited_total");
      expect(metrics).toMatch(/limit="per_agent_concurrency"\} 3/);
      await lock.release();
      const answers = await Promise.all(kept);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      await lock.release().catch(() => undefined);
    }
  });

  it("a waiting request whose client went away is dropped without running", async () => {
    const lock = await holdFactLock("held-fact-2");
    try {
      const running = post(promote(10));
      await waitFor("the first call to wait for the lock", async () => (await lockWaiters(tdb.db)) === 1);
      const abort = new AbortController();
      const store = toolCallBody("memory_store", { name: "never-stored", description: "Must not be stored.", type: "project", body: "The client left." }, 11);
      const gone = post(store, abort.signal).catch((e: unknown) => e);
      await waitFor("one waiting", async () => (await gauge(service, "agent_memory_mcp_requests_waiting")) === 1);
      abort.abort();
      await gone;
      await lock.release();
      expect((await running).status).toBe(200);
      // Its turn came and went: the queue is empty, and nothing was stored.
      await waitFor("the queue to empty", async () => (await gauge(service, "agent_memory_mcp_requests_waiting")) === 0);
      const after = await post(toolCallBody("memory_get", { name: "never-stored" }, 12));
      expect(JSON.stringify(await after.json())).toMatch(/isError|not found/i);
      expect((await tdb.db.query("select 1 from facts where name = 'never-stored'")).rows).toEqual([]);
    } finally {
      await lock.release().catch(() => undefined);
    }
  });
});

// Review of the limiter (two ways around it, both reproduced on the real service
// before the fix): a client that leaves while its token is checked, and a client
// that aborts a call whose statement goes on running.
describe("a client that goes away does not take its agent's slot with it", () => {
  let service: RunningService;
  let agent: TestAgent;

  beforeAll(async () => {
    service = await startTestService(tdb.openPool(10), { MCP_CONCURRENT_PER_AGENT: "1" }, (c) => (c.mcpQueuePerAgent = 2));
    const author = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "author-3")).token);
    await callOk(author, "memory_store", { name: "held-fact-3", description: "A third locked fact.", type: "project", body: "Locked by the test." });
    await author.close();
    agent = await addAgent(tdb.db, "leaver");
  });

  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(service.mcpUrl, { method: "POST", headers: { ...MCP_HEADERS, Authorization: `Bearer ${agent.token}` }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

  it("leaving while the token is checked frees nothing it never held: the agent's next calls run", async () => {
    // The token check waits on a lock of agent_tokens while the client gives up.
    const pool = tdb.openPool(1);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const held = pool.transaction(async (tx) => {
      await tx.query("lock table agent_tokens in access exclusive mode");
      locked();
      await released;
    });
    try {
      await isLocked;
      const abort = new AbortController();
      const gone = post(toolCallBody("whoami", {}, 1), abort.signal).catch((e: unknown) => e);
      await waitFor("the token check to wait on the lock", async () => {
        const r = await tdb.db.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%agent_tokens%'");
        return r.rows[0]!.n >= 1;
      });
      abort.abort();
      await gone;
      // Let the service see the connection close while the check still waits: the
      // close must come before the limiter's turn (this orders events, it times nothing).
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      release();
      await held;
      await pool.close();
    }
    // With the slot leaked (the bug), these waited for ever and the third was refused.
    const answers = await Promise.all([2, 3, 4].map((i) => post(toolCallBody("whoami", {}, i), AbortSignal.timeout(20_000)).then((r) => r.status)));
    expect(answers).toEqual([200, 200, 200]);
  });

  it("aborting a running call keeps its slot until its statement ends: one statement of the agent in the database at a time", async () => {
    const lock = await holdFactLock("held-fact-3");
    try {
      const first = new AbortController();
      const running = post(toolCallBody("memory_promote", { name: "held-fact-3", to: "confirmed", reason: "first" }, 10), first.signal).catch((e: unknown) => e);
      await waitFor("the first call to wait for the lock", async () => (await lockWaiters(tdb.db)) === 1);
      first.abort();
      await running;
      // Send, abort, send again: with the slot given back on abort (the bug), each
      // would put one more statement of this agent in the database.
      const next = [11, 12].map((i) => {
        const abort = new AbortController();
        const call = post(toolCallBody("memory_promote", { name: "held-fact-3", to: "confirmed", reason: `again ${i}` }, i), abort.signal).catch((e: unknown) => e);
        return { abort, call };
      });
      await waitFor("both to wait for the agent's slot", async () => (await gauge(service, "agent_memory_mcp_requests_waiting")) === 2);
      expect(await lockWaiters(tdb.db)).toBe(1);
      for (const n of next) n.abort.abort();
      await Promise.all(next.map((n) => n.call));
      expect(await lockWaiters(tdb.db)).toBe(1);
      await lock.release();
      // The first statement ends (its client long gone); the queue empties, and the agent is served again.
      await waitFor("the queue to empty", async () => (await gauge(service, "agent_memory_mcp_requests_waiting")) === 0);
      expect((await post(toolCallBody("whoami", {}, 13), AbortSignal.timeout(20_000))).status).toBe(200);
    } finally {
      await lock.release().catch(() => undefined);
    }
  });
});

// The embedded database runs one statement at a time, in arrival order: the
// case of the security review. No lock can make a call slow there (a waiting
// transaction would hold the one connection), so the flooder's calls are slow
// searches, and the check is how many of them finish before the other agent's
// call does: with the default limit, the few in progress; without it, the
// whole backlog that arrived first.
describe("on the embedded database, with the default limit", () => {
  let pdb: TestDatabase;
  let service: RunningService;
  let flooder: Client;
  let other: Client;

  beforeAll(async () => {
    pdb = await createTestDatabase("pglite");
    const loader = await createAgent(pdb.db, { name: "loader", kind: "agent", writeScopes: ["shared"] });
    for (let i = 0; i < 4000; i += 500) {
      await createEntities(pdb.db, { scope: "shared", agentId: loader.id, maxChars: 4096 }, Array.from({ length: 500 }, (_, k) => ({
        name: `entity-${i + k}`, entityType: "thing", observations: [`note ${i + k}`, `more about ${i + k}`],
      })));
    }
    service = await startTestService(pdb.db);
    flooder = await connectClient(service.mcpUrl, (await addAgent(pdb.db, "flooder")).token, "flooder");
    other = await connectClient(service.mcpUrl, (await addAgent(pdb.db, "other")).token, "other");
  });

  it("another agent's call waits for the flooder's calls in progress, not for its backlog", async () => {
    const FLOOD = 40;
    let flooderDone = 0;
    // A two-letter query that matches nothing reads the whole scope: a slow call.
    const flood = Array.from({ length: FLOOD }, () => callOk(flooder, "search_nodes", { query: "zq" }).finally(() => flooderDone++));
    // The service's own thread takes a few milliseconds per request before it
    // reaches the database: by the time a quarter of the flood is answered, the
    // rest has long reached the service, and its backlog waits in the database's
    // queue (without the limit) or in the flooder's own (with it).
    await waitFor("a quarter of the flood to be answered", async () => flooderDone >= FLOOD / 4);
    const doneBefore = flooderDone;
    await callOk(other, "whoami");
    const doneWhileOtherWaited = flooderDone - doneBefore;
    await Promise.all(flood);
    // At most the calls in progress finished first (4 here, every time); without
    // the limit, the whole backlog did (30 of 30 here, every time).
    expect(FLOOD - doneBefore).toBeGreaterThan(3 * (EMBEDDED_CONCURRENT_PER_AGENT + 2));
    expect(doneWhileOtherWaited).toBeLessThanOrEqual(EMBEDDED_CONCURRENT_PER_AGENT + 2);
  });
});

// Every call starts with its token check. On the embedded database's one
// connection, the check goes ahead of the statements waiting for their turn
// (never beside the one running), so a burst of writes from others delays a
// call's authentication by one statement, not by the whole burst.
describe("on the embedded database, the token check", () => {
  let pdb: TestDatabase;
  beforeAll(async () => {
    pdb = await createTestDatabase("pglite");
  });

  it("runs after the statement in progress and before those waiting", async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const transaction = pdb.db.transaction(async (tx) => {
      await tx.query("select 1");
      started();
      await held;
      order.push("transaction");
    });
    await running;
    const waiting = [
      pdb.db.query("select 1").then(() => order.push("first waiting")),
      pdb.db.query("select 2").then(() => order.push("second waiting")),
      pdb.db.query("select 3", [], { urgent: true }).then(() => order.push("urgent")),
    ];
    release();
    await Promise.all([transaction, ...waiting]);
    expect(order).toEqual(["transaction", "urgent", "first waiting", "second waiting"]);
  });
});
