// A slow or blocked database. Lock waits are bounded by DB_LOCK_TIMEOUT_MS and
// answered as retryable conflicts; a statement running past
// DB_STATEMENT_TIMEOUT_MS is cancelled, answered as retryable, writes nothing
// and leaves no lock behind. Locks are held from a separate connection in an
// open transaction; slowness comes from pg_sleep in a trigger of this test's
// own database.
import type pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { adminQuery, callToolOk, callTool, directClient, type Outcome, type Replica, startReplica, stopAllReplicas } from "./support.js";

const LOCK_TIMEOUT_MS = 300;
const STATEMENT_TIMEOUT_MS = 1000;
// Generous: the bound proves "does not hang", not a latency.
const MARGIN_MS = 5000;

const RETRY_CONFLICT = "Another agent is changing the same record right now. Nothing was written; retry the call.";
const RETRY_SLOW = "The database took too long to answer and the call was cancelled. Nothing was written; retry, or narrow the request.";

let tdb: TestDatabase;
let replica: Replica;
let author: TestAgent;
let reviewer: TestAgent;
let blocker: pg.Client | undefined;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  author = await addAgent(tdb.db, "author");
  reviewer = await addAgent(tdb.db, "reviewer");
  replica = await startReplica(tdb.url!, { DB_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
});
afterEach(async () => {
  await blocker?.end().catch(() => undefined);
  blocker = undefined;
});
afterAll(async () => {
  await stopAllReplicas();
});

/** Opens a transaction on a connection of its own and runs `sql` in it, keeping the locks it takes. */
async function holdLocks(sql: string, params: unknown[] = []): Promise<pg.Client> {
  blocker = await directClient(tdb.url!);
  await blocker.query("begin");
  await blocker.query(sql, params);
  return blocker;
}

async function timed(work: () => Promise<Outcome>): Promise<{ outcome: Outcome; ms: number }> {
  const t0 = Date.now();
  const outcome = await work();
  return { outcome, ms: Date.now() - t0 };
}

/** Row, tuple and transaction locks held by the service's connections to the test database. */
async function serviceLocks(): Promise<number> {
  const rows = await adminQuery<{ n: number }>(
    `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where a.datname = $1 and a.application_name = 'agent-memory' and l.locktype in ('relation', 'tuple', 'transactionid') and l.granted`,
    [tdb.name],
  );
  return rows[0]!.n;
}

describe("lock waits are bounded by lock_timeout", () => {
  it("memory_promote on a row locked elsewhere: a retryable conflict within the bound, nothing written, then success", async () => {
    await callToolOk(replica.mcpUrl, author.token, "memory_store", { name: "locked-fact", description: "d", type: "project", body: "b" });
    await holdLocks("select id from facts where name = 'locked-fact' for update");

    const { outcome, ms } = await timed(() => callTool(replica.mcpUrl, reviewer.token, "memory_promote", { name: "locked-fact", to: "confirmed", reason: "ok" }));
    expect(outcome).toMatchObject({ kind: "refused", text: RETRY_CONFLICT });
    expect(ms).toBeLessThan(LOCK_TIMEOUT_MS + MARGIN_MS);
    expect((await tdb.db.query("select status from facts where name = 'locked-fact'")).rows).toEqual([{ status: "draft" }]);

    await blocker!.query("commit");
    await callToolOk(replica.mcpUrl, reviewer.token, "memory_promote", { name: "locked-fact", to: "confirmed", reason: "ok" });
  });

  it("ledger_record while the chain head is locked elsewhere: a retryable conflict, no event, then success", async () => {
    const key = { action: "publish_post", target: "blocked", evidence: "https://blog.example/blocked" };
    await callToolOk(replica.mcpUrl, author.token, "ledger_claim", { action: key.action, target: key.target });
    const claimed = (await tdb.db.query<{ n: number }>("select count(*)::int as n from ledger_events")).rows[0]!.n;
    await holdLocks("select * from ledger_chain_head for update");
    const { outcome, ms } = await timed(() => callTool(replica.mcpUrl, author.token, "ledger_record", key));
    expect(outcome).toMatchObject({ kind: "refused", text: RETRY_CONFLICT });
    expect(ms).toBeLessThan(LOCK_TIMEOUT_MS + MARGIN_MS);
    expect((await tdb.db.query("select count(*)::int as n from ledger_events")).rows).toEqual([{ n: claimed }]);

    await blocker!.query("commit");
    await callToolOk(replica.mcpUrl, author.token, "ledger_record", key);
  });

  it("add_observations to an entity locked elsewhere: a retryable conflict, nothing added, then success", async () => {
    await callToolOk(replica.mcpUrl, author.token, "create_entities", { entities: [{ name: "Locked", entityType: "thing", observations: [] }] });
    await holdLocks("select id from graph_entities where name = 'Locked' for update");
    const args = { observations: [{ entityName: "Locked", contents: ["added later"] }] };
    const { outcome, ms } = await timed(() => callTool(replica.mcpUrl, author.token, "add_observations", args));
    expect(outcome).toMatchObject({ kind: "refused", text: RETRY_CONFLICT });
    expect(ms).toBeLessThan(LOCK_TIMEOUT_MS + MARGIN_MS);
    expect((await tdb.db.query("select count(*)::int as n from graph_observations")).rows).toEqual([{ n: 0 }]);

    await blocker!.query("commit");
    await callToolOk(replica.mcpUrl, author.token, "add_observations", args);
  });
});

describe("statements are bounded by statement_timeout", () => {
  beforeAll(async () => {
    // Makes one particular write slow: storing a version described as "slow".
    await tdb.db.exec(`
      create function test_slow_version() returns trigger language plpgsql as $$
      begin
        perform pg_sleep(30);
        return new;
      end $$;
      create trigger test_slow_version before insert on fact_versions
        for each row when (new.description = 'slow') execute function test_slow_version();`);
  });

  it("a slow update is cancelled in time, answered retryable, writes nothing and releases the row it had locked", async () => {
    const stored = await callToolOk<{ fact: { version: number } }>(replica.mcpUrl, author.token, "memory_store", {
      name: "slow-fact",
      description: "fast",
      type: "project",
      body: "b",
    });
    const { outcome, ms } = await timed(() =>
      callTool(replica.mcpUrl, author.token, "memory_store", { name: "slow-fact", description: "slow", type: "project", body: "b2", version: stored.fact.version }),
    );
    expect(outcome).toMatchObject({ kind: "refused", text: RETRY_SLOW });
    expect(ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + MARGIN_MS);

    // Rolled back whole: the fact is still at version 1 with one version row.
    const rows = await tdb.db.query("select f.version, (select count(*)::int from fact_versions v where v.fact_id = f.id) as versions from facts f where name = 'slow-fact'");
    expect(rows.rows).toEqual([{ version: 1, versions: 1 }]);
    // Its row lock went with the transaction: another connection takes it without waiting.
    blocker = await directClient(tdb.url!);
    await blocker.query("begin");
    await expect(blocker.query("select id from facts where name = 'slow-fact' for update nowait")).resolves.toMatchObject({ rowCount: 1 });
    await blocker.query("rollback");
    expect(await serviceLocks()).toBe(0);

    // The same update, not slow this time, goes through.
    await callToolOk(replica.mcpUrl, author.token, "memory_store", { name: "slow-fact", description: "fast again", type: "project", body: "b2", version: 1 });
  });
});
