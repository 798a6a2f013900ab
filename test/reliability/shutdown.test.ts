// SIGTERM during load: calls already in flight complete with their real answers,
// new calls are refused (503 on a kept-alive connection, or the connection is
// refused), and the process exits 0. In-flight calls are made deterministic by
// holding row locks from another connection: the service's calls wait on them
// while the signal arrives, and finish once the locks are released.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callToolOk, callTool, directClient, httpStatus, type Outcome, type Replica, serviceBackendsWaitingOnLocks, startReplica, stopAllReplicas, until } from "./support.js";

const BLOCKED = 4;

let tdb: TestDatabase;
let replica: Replica;
let author: TestAgent;
let reviewers: TestAgent[];
let readers: TestAgent[];
let blocker: pg.Client | undefined;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  author = await addAgent(tdb.db, "author");
  reviewers = [];
  for (let i = 0; i < BLOCKED; i++) reviewers.push(await addAgent(tdb.db, `reviewer-${i}`));
  readers = [await addAgent(tdb.db, "reader-0"), await addAgent(tdb.db, "reader-1")];
  // Lock waits long enough to outlast the test's steps; shutdown waits as long.
  // LOG_LEVEL info: the test waits for the "shutting down" line to know the signal was handled.
  replica = await startReplica(tdb.url!, { DB_POOL_MAX: "8", DB_LOCK_TIMEOUT_MS: "60000", SHUTDOWN_TIMEOUT_MS: "60000", LOG_LEVEL: "info" });
});
afterAll(async () => {
  await blocker?.end().catch(() => undefined);
  await stopAllReplicas();
});

const refusedAfterShutdown = (o: Outcome) =>
  (o.kind === "http" && o.status === 503) || (o.kind === "no-answer" && /ECONNREFUSED|ECONNRESET|other side closed|SocketError/i.test(o.error));

describe("graceful shutdown on SIGTERM", () => {
  it("finishes in-flight calls, refuses new ones, and exits 0", async () => {
    const names = Array.from({ length: BLOCKED }, (_, i) => `pending-review-${i}`);
    for (const name of names) await callToolOk(replica.mcpUrl, author.token, "memory_store", { name, description: `fact ${name}`, type: "project", body: "b" });

    // A steady read load that keeps running across the shutdown.
    let reading = true;
    const reads: Outcome[] = [];
    const readLoops = readers.map(async (r) => {
      while (reading) {
        const o = await callTool(replica.mcpUrl, r.token, "memory_recall", { keywords: ["pending"] });
        reads.push(o);
        if (o.kind !== "ok") await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    await until("reads flowing", async () => reads.filter((o) => o.kind === "ok").length >= 4);

    // Every promotion will wait on its row.
    blocker = await directClient(tdb.url!);
    await blocker.query("begin");
    await blocker.query("select id from facts where name = any($1::text[]) for update", [names]);
    const inFlight = reviewers.map((r, i) => callTool(replica.mcpUrl, r.token, "memory_promote", { name: names[i]!, to: "confirmed", reason: "reviewed" }));
    await until("promotions waiting on their locks", async () => (await serviceBackendsWaitingOnLocks(tdb.name)) === BLOCKED);

    replica.process.child.kill("SIGTERM");
    const exited = replica.process.exited;
    await until("the service to handle SIGTERM", async () => replica.process.stdout().includes("shutting down: finishing in-flight requests"));

    // New calls are refused while the in-flight ones still wait.
    for (let i = 0; i < 3; i++) {
      const late = await callTool(replica.mcpUrl, author.token, "memory_store", { name: `too-late-${i}`, description: "d", type: "project", body: "b" });
      expect(refusedAfterShutdown(late), JSON.stringify(late)).toBe(true);
    }
    expect(await httpStatus(`${replica.url}/readyz`)).not.toBe(200);
    expect(await serviceBackendsWaitingOnLocks(tdb.name)).toBe(BLOCKED);

    await blocker.query("commit");
    const answers = await Promise.all(inFlight);
    for (const a of answers) expect(a).toMatchObject({ kind: "ok" });
    expect(await exited).toBe(0);
    reading = false;
    await Promise.all(readLoops);

    const statuses = await tdb.db.query<{ name: string; status: string }>("select name, status from facts order by name");
    expect(statuses.rows).toEqual(names.map((name) => ({ name, status: "confirmed" })));
    // Reads got answers or clean refusals, never a server error.
    for (const o of reads) expect(o.kind === "ok" || refusedAfterShutdown(o), JSON.stringify(o)).toBe(true);
    expect(replica.process.stdout()).toContain('"msg":"stopped"');
  });
});
