// Reads from a streaming replica, on real clusters made by the test: a primary
// and an asynchronous standby, and two service processes (as behind a load
// balancer) with DATABASE_READ_URL naming the standby. What must hold: reads
// run on the standby; an agent sees its own writes at once, on either process,
// even while the standby replays nothing; what decides (ledger_check,
// ledger_claim, a review) sees every write at once; other agents see a write
// once the standby falls beyond the lag bound; a stopped standby costs nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { CLUSTER_DATABASE, createPair, type Pair } from "../support/clusters.js";
import { TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import request from "supertest";
import { postForm, type SignedIn, signIn } from "../console/support.js";
import { callTool, callToolOk, httpStatus, type Replica, startReplica, stopAllReplicas, until } from "./support.js";

/** Short, so that "beyond the bound" comes within a test; long enough that a loaded machine answers two calls inside it. */
const MAX_LAG_MS = 4000;

let pair: Pair;
let services: [Replica, Replica];
let writer: TestAgent;
let other: TestAgent;
let reviewer: TestAgent;
let person: TestAgent;
let viewer: TestAgent;

beforeAll(async () => {
  pair = await createPair();
  const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: pair.primary.url, poolMax: 2, connectTimeoutMs: 5000 });
  try {
    await migrate(db);
    writer = await addAgent(db, "writer");
    other = await addAgent(db, "other");
    reviewer = await addAgent(db, "reviewer");
    person = await addAgent(db, "person", { kind: "human" });
    viewer = await addAgent(db, "viewer", { kind: "human" });
  } finally {
    await db.close();
  }
  const env = { DATABASE_READ_URL: pair.standby.url, DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS), DB_CONNECT_TIMEOUT_MS: "1000" };
  services = [await startReplica(pair.primary.url, env), await startReplica(pair.primary.url, env)];
  // Everything the setup wrote is on the standby before the tests read there.
  await untilReplayed();
});
afterAll(async () => {
  await stopAllReplicas();
  await pair?.destroy();
});

async function untilReplayed(): Promise<void> {
  const lsn = (await pair.primary.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn"))[0]!.lsn;
  await until("the standby to replay the primary's position", async () => (await pair.standby.query<{ ok: boolean }>("select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok", [lsn]))[0]!.ok);
}

async function standbyTransactions(): Promise<number> {
  return (await pair.standby.query<{ n: number }>("select xact_commit::int as n from pg_stat_database where datname = $1", [CLUSTER_DATABASE]))[0]!.n;
}

async function metric(service: Replica, line: RegExp): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const match = text.split("\n").find((l) => line.test(l));
  return match ? Number(match.split(" ").at(-1)) : 0;
}

const recallNames = async (service: Replica, agent: TestAgent, keyword: string) =>
  (await callToolOk<{ hits: { name: string }[] }>(service.mcpUrl, agent.token, "memory_recall", { keywords: [keyword] })).hits.map((h) => h.name);

/**
 * Until both services read from the standby again. Each samples the standby's
 * lag on its own schedule: after a test that took it past the bound, a read
 * right after the replay caught up could still go to the primary.
 */
async function untilStandbyUp(): Promise<void> {
  for (const service of services) {
    await until("the standby to be up again", async () => (await metric(service, /^agent_memory_db_replica_state\{replica="127\.0\.0\.1:\d+",state="up"\}/)) === 1, 3 * MAX_LAG_MS);
  }
}

async function withReplayPaused<T>(work: () => Promise<T>): Promise<T> {
  await untilStandbyUp();
  await pair.standby.query("select pg_wal_replay_pause()");
  try {
    return await work();
  } finally {
    await pair.standby.query("select pg_wal_replay_resume()");
    await untilReplayed();
  }
}

describe("reads from a streaming replica", () => {
  it("run on the standby: its transactions count them, and /metrics says so", async () => {
    const [a] = services;
    const before = await standbyTransactions();
    const replicaReadsBefore = await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/);
    const CALLS = 30;
    for (let i = 0; i < CALLS; i++) {
      await callToolOk(a.mcpUrl, other.token, i % 2 ? "memory_recall" : "search_nodes", i % 2 ? { keywords: ["anything"] } : { query: "anything" });
    }
    // Every read that may lag runs on the standby, as the tool, resource or completion it is.
    const reads: [string, Record<string, unknown>][] = [
      ["memory_list", {}],
      ["memory_review", {}],
      ["memory_get", { name: "not-there" }],
      ["read_graph", {}],
      ["read_relations", {}],
      ["open_nodes", { names: ["Nothing"] }],
      ["read_observations", { name: "Nothing" }],
    ];
    for (const [tool, args] of reads) {
      const outcome = await callTool(a.mcpUrl, other.token, tool, args);
      if (outcome.kind !== "ok") expect(outcome, tool).toMatchObject({ kind: "refused", text: expect.not.stringMatching(/internal|retry/i) });
    }
    // Backends report their counts to pg_stat_database within a second or so of going idle.
    await until("the standby's transaction count to take the reads", async () => (await standbyTransactions()) - before >= CALLS + reads.length, 10_000);
    expect((await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/)) - replicaReadsBefore).toBe(CALLS + reads.length);
    expect(await metric(a, /^agent_memory_db_replica_state\{replica="127\.0\.0\.1:\d+",state="up"\}/)).toBe(1);
    expect(await metric(a, /^agent_memory_db_replica_lag_seconds\{replica=/)).toBeLessThan(MAX_LAG_MS / 1000);
  });

  it("record a recall served by the standby as a receipt on the primary", async () => {
    const [a] = services;
    await callToolOk(a.mcpUrl, writer.token, "memory_store", { name: "replica-receipt", description: "A fact read from the standby", type: "project", body: "Its receipt goes to the primary." });
    await untilReplayed();
    const replicaReadsBefore = await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/);
    expect(await recallNames(a, other, "standby")).toEqual(["replica-receipt"]);
    expect((await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/)) - replicaReadsBefore).toBe(1);
    // Written in the next batch (within RECEIPT_FLUSH_MS), on the primary.
    await until("the receipt on the primary", async () =>
      (await pair.primary.query<{ n: number }>(
        "select count(*)::int as n from fact_receipts r join agents a on a.id = r.agent_id join facts f on f.id = r.fact_id where a.name = 'other' and f.name = 'replica-receipt' and r.via = 'memory_recall'",
      ))[0]!.n === 1,
    );
  });

  it("show a writer its own fact, update and entity at once, on either service, while the standby replays nothing", async () => {
    const [a, b] = services;
    await withReplayPaused(async () => {
      await callToolOk(a.mcpUrl, writer.token, "memory_store", { name: "own-write", description: "Quokka deploys need a warm cache", type: "project", body: "first" });
      // The next call lands on the other service.
      expect(await recallNames(b, writer, "quokka")).toContain("own-write");
      // Another agent reads the standby, which has none of it yet: reads really are on the replica.
      expect(await recallNames(b, other, "quokka")).not.toContain("own-write");
      const got = await callToolOk<{ fact: { version: number; body: string } }>(b.mcpUrl, writer.token, "memory_get", { name: "own-write" });
      expect(got.fact.body).toBe("first");
      await callToolOk(b.mcpUrl, writer.token, "memory_store", { name: "own-write", description: "Quokka deploys need a warm cache", type: "project", body: "second", version: got.fact.version });
      expect((await callToolOk<{ fact: { body: string } }>(a.mcpUrl, writer.token, "memory_get", { name: "own-write" })).fact.body).toBe("second");
      await callToolOk(a.mcpUrl, writer.token, "create_entities", { entities: [{ name: "QuokkaCache", entityType: "service", observations: ["warmed before deploys"] }] });
      const opened = await callToolOk<{ entities: { name: string }[] }>(b.mcpUrl, writer.token, "open_nodes", { names: ["QuokkaCache"] });
      expect(opened.entities.map((e) => e.name)).toEqual(["QuokkaCache"]);

    });
  });

  it("keep what decides on the primary: a record and a draft written a moment before are seen by the check, the claim and the review", async () => {
    const [a, b] = services;
    await withReplayPaused(async () => {
      await callToolOk(a.mcpUrl, writer.token, "ledger_claim", { action: "publish_post", target: "replica-post", ttl_seconds: 60 });
      await callToolOk(a.mcpUrl, writer.token, "ledger_record", { action: "publish_post", target: "replica-post", evidence: "https://blog.example/replica-post" });
      const check = await callToolOk<{ status: string }>(b.mcpUrl, other.token, "ledger_check", { action: "publish_post", target: "replica-post" });
      expect(check.status).toBe("EXECUTED");
      const claim = await callTool(b.mcpUrl, other.token, "ledger_claim", { action: "publish_post", target: "replica-post", ttl_seconds: 60 });
      expect(claim.kind).toBe("refused");

      await callToolOk(a.mcpUrl, writer.token, "memory_store", { name: "fresh-draft", description: "Wombat builds run on Tuesdays", type: "project", body: "b" });
      const review = await callToolOk<{ fact: { status: string } }>(b.mcpUrl, reviewer.token, "memory_promote", { name: "fresh-draft", to: "confirmed", reason: "checked the build calendar" });
      expect(review.fact.status).toBe("confirmed");
    });
  });

  it("let other agents read a moment behind, never beyond the lag bound", async () => {
    const [a, b] = services;
    await withReplayPaused(async () => {
      await callToolOk(a.mcpUrl, writer.token, "memory_store", { name: "bounded-lag", description: "Platypus queues drain at night", type: "project", body: "b" });
      const writtenAt = Date.now();
      // Past the bound the standby is not used, and the primary has the write.
      const seen = await until("another agent to see the write", async () => (await recallNames(b, other, "platypus")).includes("bounded-lag") && Date.now(), 3 * MAX_LAG_MS);
      expect(seen - writtenAt).toBeLessThan(MAX_LAG_MS + 2000);
      expect(await metric(b, /^agent_memory_db_replica_state\{replica="127\.0\.0\.1:\d+",state="lagging"\}/)).toBe(1);
    });
  });

  it("serve the console's pages too: a person sees their own change at once, another person reads the standby", async () => {
    const [a, b] = services;
    const personOnB = await signIn(b.url, person.token);
    const viewerOnB = await signIn(b.url, viewer.token);
    const page = async (who: SignedIn, path: string) => {
      const res = await request(b.url).get(path).set("Cookie", who.cookie);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      return res.text;
    };
    await withReplayPaused(async () => {
      const replicaReads = await metric(b, /^agent_memory_db_reads_total\{target="replica"\}/);
      // A change through MCP on one service, the person's next page on the other.
      await callToolOk(a.mcpUrl, person.token, "memory_store", { name: "console-own", description: "Echidna builds need two cores", type: "project", body: "b" });
      expect(await page(personOnB, "/console/facts/shared/console-own")).toContain("Echidna builds need two cores");
      // A change through a console form: the page its redirect leads to shows it.
      await callToolOk(a.mcpUrl, writer.token, "memory_store", { name: "console-draft", description: "Numbat caches expire hourly", type: "project", body: "b" });
      const confirmed = await postForm(b.url, personOnB, "/console/facts/shared/console-draft/promote", { to: "confirmed", version: "1", reason: "checked the cache settings" });
      expect(confirmed.status, confirmed.text.slice(0, 300)).toBe(303);
      // The standby has no such fact yet: the page (200) came from the primary.
      const shown = String(confirmed.headers.location).replace(b.url, "");
      expect(await page(personOnB, shown)).toContain("Numbat caches expire hourly");
      expect((await request(b.url).get(shown).set("Cookie", viewerOnB.cookie)).status).toBe(404);
      // Another person's pages come from the standby, which has none of it yet.
      expect(await page(viewerOnB, "/console/facts")).not.toContain("console-own");
      expect((await metric(b, /^agent_memory_db_reads_total\{target="replica"\}/)) - replicaReads).toBeGreaterThanOrEqual(1);
    });
  });

  it("go on without errors while the standby is stopped, with /readyz ready, and use it again once it is back", async () => {
    const [a, b] = services;
    await pair.standby.stop("fast");
    try {
      for (let i = 0; i < 20; i++) {
        const service = i % 2 ? a : b;
        expect(await recallNames(service, other, "quokka")).toContain("own-write");
      }
      expect(await httpStatus(`${a.url}/readyz`)).toBe(200);
      await until("the standby marked down", async () => (await metric(a, /^agent_memory_db_replica_state\{replica="127\.0\.0\.1:\d+",state="down"\}/)) === 1);
    } finally {
      await pair.standby.start();
    }
    await until("the standby up again", async () => (await metric(a, /^agent_memory_db_replica_state\{replica="127\.0\.0\.1:\d+",state="up"\}/)) === 1);
    const before = await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/);
    await callToolOk(a.mcpUrl, other.token, "memory_recall", { keywords: ["quokka"] });
    expect(await metric(a, /^agent_memory_db_reads_total\{target="replica"\}/)).toBe(before + 1);
  });
});
