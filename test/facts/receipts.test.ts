// Recall receipts over real MCP calls, on both databases: who was served a fact
// is recorded (never the query), shown to people and reviewers, named when the
// fact is withdrawn, and each reader is told once at its next recall or
// start-task, only while it may read the fact's scope; receipts are pruned
// after the retention and left out of an export unless asked for.
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAgentScopes } from "../../src/auth/store.js";
import { checkToken } from "../../src/auth/verifier.js";
import { pruneReceipts } from "../../src/facts/trust/receipt-writer.js";
import type { RunningService } from "../../src/serve.js";
import { exportSnapshot } from "../../src/snapshots/export.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { textOf } from "../support/mcp.js";
import { addAgent, callOk, connectClient, startTestService, type TestAgent } from "../support/service.js";

type Recall = { hits: Array<{ name: string }>; withdrawn?: string[] };
type ReadBy = { readers: Array<{ agent: string; reads: number; versions: number[] }>; more: number };

describe.each(["postgres", "pglite"] as const)("recall receipts (%s)", (kind) => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let person: Client;
  let b: Client;
  let c: Client;
  let d: Client;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    service = await startTestService(tdb.db);
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "writer", { scopes: ["shared", "ops"] })).token);
    person = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "person", { kind: "human", scopes: ["shared", "ops"] })).token);
    for (const name of ["agent-b", "agent-c", "agent-d"]) tokens[name] = (await addAgent(tdb.db, name, { readScopes: ["ops"] })).token;
    b = await connectClient(service.mcpUrl, tokens["agent-b"]!);
    c = await connectClient(service.mcpUrl, tokens["agent-c"]!);
    d = await connectClient(service.mcpUrl, tokens["agent-d"]!);
    await callOk(writer, "memory_store", { name: "freeze-window", scope: "ops", type: "project", description: "Deploy freeze runs Friday evening", body: "No deploys after 16:00 on Fridays." });
    await callOk(writer, "memory_store", { name: "on-call-rota", scope: "ops", type: "reference", description: "Who is on call this week", body: "The rota lives in the ops wiki." });
    await callOk(person, "memory_promote", { name: "freeze-window", scope: "ops", to: "confirmed", reason: "checked the calendar" });
  });
  afterAll(async () => {
    for (const client of [writer, person, b, c, d]) await client?.close();
  });

  const recall = (client: Client, keywords = ["freeze"]) => client.callTool({ name: "memory_recall", arguments: { keywords } });
  const readBy = async (client: Client, name = "freeze-window") => (await callOk<{ readBy?: ReadBy }>(client, "memory_get", { name, scope: "ops" })).readBy;

  it("records who was served which version, never the query, and shows the readers to people and reviewers only", async () => {
    expect((await callOk<Recall>(b, "memory_recall", { keywords: ["freeze"] })).hits.map((h) => h.name)).toEqual(["freeze-window"]);
    expect((await callOk<Recall>(d, "memory_recall", { keywords: ["freeze"] })).hits).toHaveLength(1);
    await callOk(c, "memory_list", { scope: "ops" });
    await service.deps.receipts.flush();

    const rows = (await tdb.db.query<Record<string, unknown>>("select a.name as agent, r.version, r.status, r.via from fact_receipts r join agents a on a.id = r.agent_id join facts f on f.id = r.fact_id where f.name = 'freeze-window' order by a.name")).rows;
    expect(rows).toEqual([
      { agent: "agent-b", version: 1, status: "confirmed", via: "memory_recall" },
      { agent: "agent-c", version: 1, status: "confirmed", via: "memory_list" },
      { agent: "agent-d", version: 1, status: "confirmed", via: "memory_recall" },
    ]);
    const columns = (await tdb.db.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = 'fact_receipts'")).rows.map((r) => r.column_name);
    expect(columns.sort()).toEqual(["agent_id", "at", "fact_id", "id", "served", "status", "version", "via"]);

    const seen = await readBy(person);
    expect(seen?.readers.map((r) => r.agent).sort()).toEqual(["agent-b", "agent-c", "agent-d"]);
    expect(seen?.readers.find((r) => r.agent === "agent-b")).toMatchObject({ reads: 1, versions: [1] });

    // Served again within its window (RECEIPT_WINDOW_MS): counted in memory, no row of its own yet.
    await callOk(d, "memory_recall", { keywords: ["freeze"] });
    await callOk(d, "memory_recall", { keywords: ["freeze"] });
    await service.deps.receipts.flush();
    const dRows = async () => (await tdb.db.query<{ served: number }>("select r.served from fact_receipts r join agents a on a.id = r.agent_id join facts f on f.id = r.fact_id where a.name = 'agent-d' and f.name = 'freeze-window' order by r.id")).rows.map((r) => r.served);
    expect(await dRows()).toEqual([1]);
    expect((await readBy(person))?.readers.find((r) => r.agent === "agent-d")).toMatchObject({ reads: 1, versions: [1] });
    // A reviewer of the scope (may write it) sees them too; an agent that only reads the scope does not.
    expect(await readBy(writer)).toBeDefined();
    expect(await readBy(b)).toBeUndefined();
    const text = textOf(await person.callTool({ name: "memory_get", arguments: { name: "freeze-window", scope: "ops" } }));
    expect(text).toMatch(/Read by \(most recent first\):\n- /);
    expect(text).toContain("- agent-b: 1 time, last ");
  });

  it("a deprecation names the readers since the last confirmation; each is told once, within its scopes", async () => {
    // D loses the scope before the withdrawal: it may not learn of a fact it may not read now.
    await setAgentScopes(tdb.db, "agent-d", ["shared"], []);
    const promoted = await callOk<{ readersTold?: { names: string[]; total: number } }>(person, "memory_promote", {
      name: "freeze-window",
      scope: "ops",
      to: "deprecated",
      reason: "the freeze moved to Thursday",
    });
    // C read it through memory_list and the writer through memory_get, so they are named too; the person withdrew it.
    expect(promoted.readersTold?.names.sort()).toEqual(["agent-b", "agent-c", "agent-d", "writer"]);
    const answer = textOf(await person.callTool({ name: "memory_get", arguments: { name: "on-call-rota", scope: "ops" } }));
    expect(answer).not.toContain("withdrawn");
    // The token check counts only notices the agent may see: D's waits unread, and costs its recalls nothing.
    const waiting = async (agent: string) => {
      const check = await checkToken(tdb.db, tokens[agent]!);
      return check.ok ? check.caller.noticesWaiting === true : undefined;
    };
    expect(await waiting("agent-b")).toBe(true);
    expect(await waiting("agent-d")).toBe(false);

    const first = await recall(b, ["rota"]);
    const notices = (first.structuredContent as Recall).withdrawn;
    expect(notices).toHaveLength(1);
    expect(notices![0]).toMatch(/^A fact you read on \d{4}-\d{2}-\d{2}, ops\/freeze-window \(version 1\), was withdrawn: the freeze moved to Thursday\. /);
    expect(textOf(first).startsWith(notices![0]!)).toBe(true);
    // Exactly once.
    expect((await callOk<Recall>(b, "memory_recall", { keywords: ["rota"] })).withdrawn).toBeUndefined();

    // D may no longer read ops: nothing about the fact reaches it, in recall or in start-task.
    const dRecall = await recall(d, ["rota"]);
    expect((dRecall.structuredContent as Recall).withdrawn).toBeUndefined();
    expect(textOf(dRecall)).not.toContain("freeze-window");
    const dPrompt = await d.getPrompt({ name: "start-task", arguments: { topic: "deploy" } });
    expect(JSON.stringify(dPrompt)).not.toContain("freeze-window");

    // C is told at its start-task instead, once.
    const cPrompt = await c.getPrompt({ name: "start-task", arguments: { topic: "deploy" } });
    const cText = (cPrompt.messages[0]!.content as { text: string }).text;
    expect(cText).toMatch(/^A fact you read on .*ops\/freeze-window \(version 1\), was withdrawn: the freeze moved to Thursday/);
    expect(cText).toContain("I am starting this task: deploy");
    expect((await callOk<Recall>(c, "memory_recall", { keywords: ["rota"] })).withdrawn).toBeUndefined();

    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^agent_memory_withdrawal_notices_delivered_total 2$/m);
    expect(metrics).toMatch(/^agent_memory_receipts_recorded_total [1-9]\d*$/m);
  });

  it("delivers a notice once when two answers of one agent race", async () => {
    for (let i = 0; i < 5; i++) {
      const name = `race-notice-${i}`;
      await callOk(writer, "memory_store", { name, scope: "ops", type: "project", description: `Race notice ${i}`, body: "To be withdrawn." });
      await callOk(b, "memory_get", { name, scope: "ops" });
      await service.deps.receipts.flush();
      await callOk(person, "memory_promote", { name, scope: "ops", to: "deprecated", reason: "raced" });
      const answers = await Promise.all([recall(b, ["rota"]), recall(b, ["rota"])]);
      const delivered = answers.flatMap((a) => (a.structuredContent as Recall).withdrawn ?? []).filter((t) => t.includes(`ops/${name} `));
      expect(delivered, `round ${i}`).toHaveLength(1);
    }
  });

  it("tells an agent that never read a fact nothing when it is withdrawn", async () => {
    await callOk(writer, "memory_store", { name: "cache-ttl", scope: "ops", type: "project", description: "Cache entries live ten minutes", body: "TTL 600 s." });
    await callOk(b, "memory_recall", { keywords: ["cache"] });
    await service.deps.receipts.flush();
    const promoted = await callOk<{ readersTold?: { names: string[] } }>(person, "memory_promote", { name: "cache-ttl", scope: "ops", to: "deprecated", reason: "no cache any more" });
    expect(promoted.readersTold?.names).toEqual(["agent-b"]);
    expect((await callOk<Recall>(c, "memory_recall", { keywords: ["rota"] })).withdrawn).toBeUndefined();
    expect((await callOk<Recall>(b, "memory_recall", { keywords: ["rota"] })).withdrawn).toEqual([expect.stringContaining("ops/cache-ttl (version 1), was withdrawn: no cache any more")]);
  });

  it("a supersession reaches the old fact's readers, and names the replacement to those who may read it", async () => {
    await callOk(writer, "memory_store", { name: "deploy-day", scope: "ops", type: "project", description: "Deploys happen on Tuesdays", body: "Tuesday is deploy day." });
    await callOk(person, "memory_promote", { name: "deploy-day", scope: "ops", to: "confirmed", reason: "checked" });
    await callOk(b, "memory_get", { name: "deploy-day", scope: "ops" });
    await callOk(writer, "memory_store", { name: "deploy-day-wednesday", scope: "ops", type: "project", description: "Deploys happen on Wednesdays", body: "Wednesday is deploy day.", supersedes: "deploy-day" });
    const promoted = await callOk<{ readersTold?: { names: string[] } }>(person, "memory_promote", { name: "deploy-day-wednesday", scope: "ops", to: "confirmed", reason: "new calendar" });
    expect(promoted.readersTold?.names).toEqual(["agent-b"]);
    expect((await callOk<Recall>(b, "memory_recall", { keywords: ["rota"] })).withdrawn).toEqual([
      expect.stringMatching(/ops\/deploy-day \(version 1\), was withdrawn: superseded by deploy-day-wednesday \(version 1\), confirmed by person; its replacement: ops\/deploy-day-wednesday\.$/),
    ]);
  });

  it("keeps receipts out of an export unless asked, and prunes them after the retention", async () => {
    const dir = await mkdtemp(join(tmpdir(), "am-receipts-"));
    try {
      const plain = await exportSnapshot(tdb.db, { dir, scopes: [], statuses: [] });
      expect(plain.receipts).toBeUndefined();
      await expect(stat(join(dir, "receipts.jsonl"))).rejects.toThrow();
      const withReceipts = await exportSnapshot(tdb.db, { dir, scopes: [], statuses: [], receipts: true });
      const lines = (await readFile(join(dir, "receipts.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(withReceipts.receipts?.rows).toBe(lines.length);
      expect(lines).toContainEqual({ at: expect.any(String), agent: "agent-b", scope: "ops", name: "freeze-window", version: 1, status: "confirmed", via: "memory_recall", served: 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const count = async () => (await tdb.db.query<{ n: number }>("select count(*)::int as n from fact_receipts")).rows[0]!.n;
    const before = await count();
    await tdb.db.query(
      `insert into fact_receipts (at, agent_id, fact_id, version, status, via)
       select now() - interval '91 days', a.id, f.id, 1, 'confirmed', 'memory_recall' from agents a, facts f where a.name = 'agent-c' and f.name = 'on-call-rota'`,
    );
    await tdb.db.query(`update fact_readers set last_at = now() - interval '91 days' where agent_id = (select id from agents where name = 'agent-c') and fact_id = (select id from facts where name = 'on-call-rota')`);
    // D's notice (never shown: D lost the scope) tells of a read 91 days ago.
    await tdb.db.query(`update fact_withdrawal_notices set read_at = now() - interval '91 days' where agent_id = (select id from agents where name = 'agent-d')`);
    expect(await count()).toBe(before + 1);
    const pruned = await pruneReceipts(tdb.db, 90);
    expect(pruned).toEqual({ receipts: 1, readers: 1, notices: 1 });
    expect(await count()).toBe(before);
    // Receipts are never changed, only pruned.
    await expect(tdb.db.query("update fact_receipts set via = 'x'")).rejects.toThrow(/append-only/);
  });
});

// The window is the writer's own (memory, not SQL): one backend is enough. Each
// service here has a pool of its own on the same database (a service stops by
// closing its database).
describe("recall receipts: one row per fact per window", () => {
  let tdb: TestDatabase;
  let writer: TestAgent;
  const names = Array.from({ length: 30 }, (_, i) => `loop-fact-${i}`);

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    writer = await addAgent(tdb.db, "writer", { scopes: ["shared", "ops"] });
    const service = await startTestService(tdb.openPool(2));
    const client = await connectClient(service.mcpUrl, writer.token);
    for (const name of names) await callOk(client, "memory_store", { name, scope: "ops", type: "feedback", description: `Loop fact ${name}`, body: "Read in a loop." });
    await client.close();
  });

  const receipts = async (agent: string) =>
    (
      await tdb.db.query<{ rows: number; served: number }>(
        "select count(*)::int as rows, coalesce(sum(r.served), 0)::int as served from fact_receipts r join agents a on a.id = r.agent_id where a.name = $1",
        [agent],
      )
    ).rows[0]!;

  it("an agent reading the same facts in a loop adds a row per fact per window, its count the reads", async () => {
    const looper = await addAgent(tdb.db, "looper", { readScopes: ["ops"] });
    const service = await startTestService(tdb.openPool(2));
    const client = await connectClient(service.mcpUrl, looper.token);
    const read = () => callOk(client, "memory_list", { scope: "ops", type: "feedback", limit: 30 });
    await read();
    await service.deps.receipts.flush();
    // Each fact's first read is written at once: whom a withdrawal reaches is never late.
    expect(await receipts("looper")).toEqual({ rows: 30, served: 30 });
    for (let round = 1; round < 10; round++) await read();
    await service.deps.receipts.flush();
    // Read again within the window: counted, no rows.
    expect(await receipts("looper")).toEqual({ rows: 30, served: 30 });
    await client.close();
    await service.stop();
    // The window's repeats, one row per fact, written when it ends (here: at the stop).
    expect(await receipts("looper")).toEqual({ rows: 60, served: 300 });
    const reads = (await tdb.db.query<{ reads: number }>("select distinct r.reads::int as reads from fact_readers r join agents a on a.id = r.agent_id where a.name = 'looper'")).rows;
    expect(reads).toEqual([{ reads: 10 }]);
  });

  it("writes a window's repeats when the window ends, and starts the next one", async () => {
    const reader = await addAgent(tdb.db, "window-reader", { readScopes: ["ops"] });
    const service = await startTestService(tdb.openPool(2), {}, (config) => (config.facts.receiptWindowMs = 2_000));
    const rows = async () =>
      (await tdb.db.query<{ served: number }>("select r.served from fact_receipts r join agents a on a.id = r.agent_id where a.name = 'window-reader' order by r.id")).rows.map((r) => r.served);
    const client = await connectClient(service.mcpUrl, reader.token);
    await callOk(client, "memory_get", { name: "loop-fact-0", scope: "ops" });
    await service.deps.receipts.flush();
    for (let i = 0; i < 2; i++) await callOk(client, "memory_get", { name: "loop-fact-0", scope: "ops" });
    const deadline = Date.now() + 10_000;
    while ((await rows()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await rows()).toEqual([1, 2]);
    await client.close();
  });
});
