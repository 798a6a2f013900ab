// The recall vocabulary (fact_words) gets each new word of a stored fact through
// a unique index: a writer of a word another open transaction has just written
// waits for that one to end. Writers that take common words in different orders
// can so wait on each other, a deadlock Postgres breaks by failing one of them
// (an agent is told "another agent is changing the same record"). The words
// used to go in in the order of a hash table, whose size follows the number of
// words, so a short and a long fact with common new words took them in
// different orders; this was seen in the benchmark's load of 16 writers.
//
// Played out step by step on real connections, without timing luck: a first
// transaction holds one word; a second, storing a short fact, takes the words
// before it and waits; a third, storing a long fact with the same words, takes
// what it can and waits; the first ends. Both facts must be stored.
//
// Facts stored in separate statements of one transaction (an import) can still
// close a cycle with an agent's store; the service then retries the agent's
// statement (src/db/core/retry.ts), and the agent is told "created"; when the
// import's file is the one failed, the file is imported again.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { factWordsParams } from "../../src/facts/cjk-words.js";
import { CREATE_FACT } from "../../src/facts/sql.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { importFrom } from "../snapshots/helpers.js";

const word = (prefix: string, n: number) => `${prefix}${n.toString(36).padStart(3, "0")}`;

describe("recall vocabulary under racing writers (Postgres)", () => {
  let tdb: TestDatabase;
  let authorId: number;
  let service: InProcessService;
  let agent: Client;
  const connections: pg.Client[] = [];

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    await addAgent(tdb.db, "writer");
    authorId = (await tdb.db.query<{ id: number }>("select id::int from agents where name = 'writer'")).rows[0]!.id;
    service = await startInProcessService(tdb.db);
    agent = await connectClient(service, (await addAgent(tdb.db, "agent")).token);
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.end().catch(() => undefined)));
  });

  async function open(): Promise<{ client: pg.Client; pid: number }> {
    const client = new pg.Client({ connectionString: tdb.url });
    connections.push(client);
    await client.connect();
    await client.query("set lock_timeout = '20s'");
    const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
    return { client, pid };
  }

  /** Waits until a connection (`pid`, or any but `except`) waits for a lock. */
  async function waitsForLock(pid: number | undefined, except?: number): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const r = await tdb.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and ($1::int is null or pid = $1) and ($2::int is null or pid <> $2)`,
        [pid ?? null, except ?? null],
      );
      if (r.rows[0]!.n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no connection waited for a lock`);
  }

  const store = (client: pg.Client, name: string, body: string) =>
    client.query(CREATE_FACT, ["shared", name, "racing new words", "reference", body, authorId, null, ...factWordsParams(name, "racing new words", body), null]);

  // Different held words give different interleavings; each must end with both facts.
  for (const held of [7, 23, 41, 55]) {
    it(`a short and a long fact with 60 common new words, while word ${held} is held: both are stored`, async () => {
      const common = Array.from({ length: 60 }, (_, w) => word(`c${held}x`, w));
      const own = Array.from({ length: 60 }, (_, w) => word(`o${held}x`, w));
      const [first, second, third] = [await open(), await open(), await open()];

      await first.client.query("begin");
      await store(first.client, `holder-${held}`, common[held]!);
      const short = (async () => {
        await second.client.query("begin");
        await store(second.client, `short-${held}`, common.join(" "));
        await second.client.query("commit");
      })();
      await waitsForLock(second.pid);
      const long = (async () => {
        await third.client.query("begin");
        await store(third.client, `long-${held}`, [...common, ...own].join(" "));
        await third.client.query("commit");
      })();
      await waitsForLock(third.pid);
      await first.client.query("commit");

      const outcomes = await Promise.allSettled([short, long]);
      expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "stored"))).toEqual(["stored", "stored"]);
      const words = await tdb.db.query<{ n: number }>("select count(*)::int as n from fact_words where word like $1", [`c${held}x%`]);
      expect(words.rows[0]?.n).toBe(60);
    });
  }

  /**
   * Closes a cycle on the words `${tag}a1` and `${tag}b1`: another transaction
   * holds b; `work` (given "a b") takes a, then waits for b; the other then asks
   * for a. Postgres fails `work`'s statement, and the other goes on and
   * commits: the other waits with a deadlock_timeout far longer than the
   * service's, so the service's connection is always the one that checks for
   * the cycle (and is its victim), however loaded the machine. Returns what
   * `work` answered in the end.
   */
  async function closeCycle<T>(tag: string, work: (words: string) => Promise<T>): Promise<T> {
    const [a, b] = [`${tag}aaaa1`, `${tag}bbbb1`];
    const other = await open();
    await other.client.query("set deadlock_timeout = '15s'");
    await other.client.query("begin");
    await store(other.client, `${tag}-hold-b`, b);
    const done = work(`${a} ${b}`);
    await waitsForLock(undefined, other.pid);
    await store(other.client, `${tag}-hold-a`, a);
    await other.client.query("commit");
    return done;
  }

  it("an agent's store that closes a cycle with an import's transaction is retried and answered created", async () => {
    const result = (await closeCycle("k", (words) =>
      agent.callTool({ name: "memory_store", arguments: { name: "retried-fact", description: "racing new words", type: "reference", body: words } }),
    )) as CallToolResult;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(textOf(result)).toContain("retried-fact");
    const facts = await tdb.db.query<{ name: string }>("select name from facts where name in ('k-hold-a', 'k-hold-b', 'retried-fact') order by name");
    expect(facts.rows.map((r) => r.name)).toEqual(["k-hold-a", "k-hold-b", "retried-fact"]);
  });

  it("an agent's update that closes a cycle with an import's transaction is retried and answered updated", async () => {
    const created = (await agent.callTool({ name: "memory_store", arguments: { name: "retried-update", description: "racing new words", type: "reference", body: "first" } })) as CallToolResult;
    expect(created.isError ?? false, textOf(created)).toBe(false);
    const result = (await closeCycle("u", (words) =>
      agent.callTool({ name: "memory_store", arguments: { name: "retried-update", description: "racing new words", type: "reference", body: words, version: 1 } }),
    )) as CallToolResult;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(textOf(result)).toContain("version 2");
  });

  it("an import's file that closes a cycle with an agent's transaction is imported again", async () => {
    const folder = await mkdtemp(join(tmpdir(), "am-vocabulary-race-"));
    try {
      const report = await closeCycle("m", async (words) => {
        await writeFile(
          join(folder, "reference_imported-fact.md"),
          `---\nname: imported-fact\ndescription: racing new words\ntype: reference\nstatus: draft\nowner: writer\n---\n\n${words}\n`,
        );
        return importFrom(tdb.db, folder);
      });
      expect(report.files.map((f) => [f.file, f.outcome])).toEqual([["reference_imported-fact.md", "created"]]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
