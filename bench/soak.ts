// npm run soak [-- --seconds 60] [-- --clients 32] [-- --database-url postgres://…]
//
// A steady mixed load for a while, to find what short tests cannot: errors under
// sustained concurrency, and memory that grows (leaks show as a rising RSS).
// The service runs as its own process against a fresh Postgres database; 32 real
// MCP clients (one agent each) mix recall, get, store, promote, ledger claim +
// record + check, and graph writes and searches. Every call is expected to
// succeed (keys are distinct, each draft is reviewed by exactly one other agent),
// so any error is a finding. Prints calls, errors, p50/p99 per tool and the
// service's RSS over time; writes the figures to bench/results/soak-*.json.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createAgent, issueToken } from "../src/auth/store.js";
import { migrate } from "../src/db/schema/migrate.js";
import { openPostgres } from "../src/db/postgres/postgres.js";
import { connect } from "./lib/clients.js";
import { area, generateFact, rng } from "./lib/corpus.js";
import { createDatabase, startBenchService } from "./lib/service.js";
import { round, summarize } from "./lib/stats.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    clients: { type: "string", default: "32" },
    "database-url": { type: "string" },
    out: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const clientCount = Number(values.clients);
if (!Number.isFinite(seconds) || seconds <= 0 || !Number.isInteger(clientCount) || clientCount < 2) {
  throw new Error("usage: npm run soak -- [--seconds N] [--clients N (at least 2)]");
}
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const PRELOAD_FACTS = 600;
const RSS_EVERY_MS = 5000;

interface Agent {
  name: string;
  token: string;
}

async function createAgents(databaseUrl: string): Promise<Agent[]> {
  const db = openPostgres({ connectionString: databaseUrl, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 });
  try {
    // The service would migrate at start-up; the agents are needed before it starts.
    await migrate(db);
    const agents: Agent[] = [];
    for (let i = 0; i < clientCount; i++) {
      const name = `soak-agent-${String(i).padStart(2, "0")}`;
      await createAgent(db, { name, kind: "agent", writeScopes: ["shared", i % 2 ? "team-b" : "team-a"] });
      agents.push({ name, token: (await issueToken(db, name, null)).token });
    }
    return agents;
  } finally {
    await db.close();
  }
}

/** Latencies and failures per tool. */
class Tally {
  samples = new Map<string, number[]>();
  errors = new Map<string, number>();
  firstErrors: string[] = [];

  async time(client: Client, tool: string, args: Record<string, unknown>): Promise<CallToolResult | undefined> {
    const t0 = performance.now();
    let result: CallToolResult | undefined;
    let failure: string | undefined;
    try {
      result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      if (result.isError) failure = result.content.map((c) => (c.type === "text" ? c.text : "")).join(" ");
    } catch (error) {
      failure = String(error);
    }
    const ms = performance.now() - t0;
    if (!this.samples.has(tool)) this.samples.set(tool, []);
    this.samples.get(tool)!.push(ms);
    if (failure !== undefined) {
      this.errors.set(tool, (this.errors.get(tool) ?? 0) + 1);
      if (this.firstErrors.length < 10) this.firstErrors.push(`${tool}: ${failure.slice(0, 300)}`);
      return undefined;
    }
    return result;
  }
}

/** Drafts waiting for review, each handed to exactly one reviewer who is not its author. */
class ReviewQueue {
  private drafts: Array<{ name: string; scope: string; author: number }> = [];
  push(d: { name: string; scope: string; author: number }) {
    this.drafts.push(d);
    if (this.drafts.length > 1000) this.drafts.shift();
  }
  /** A draft that `reviewer` may confirm: written by another agent in a scope the reviewer may write. */
  take(reviewer: number): { name: string; scope: string } | undefined {
    const i = this.drafts.findIndex((d) => d.author !== reviewer && (d.scope === "shared" || d.author % 2 === reviewer % 2));
    return i < 0 ? undefined : this.drafts.splice(i, 1)[0];
  }
}

async function main() {
  const dbName = `am_soak_${process.pid}`;
  const database = await createDatabase(baseUrl, dbName);
  console.log(`agent-memory soak: ${seconds} s, ${clientCount} clients, database ${dbName}`);
  let service: Awaited<ReturnType<typeof startBenchService>> | undefined;
  try {
    const agents = await createAgents(database.url);
    const svc = await startBenchService(database.url, { DB_POOL_MAX: "20" });
    service = svc;
    const clients = await Promise.all(agents.map((a) => connect(svc.mcpUrl, a.token)));

    // Something to recall and search from the start; each client remembers the facts it may read.
    const preload = new Tally();
    const readableBy: string[][] = clients.map(() => []);
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = c; i < PRELOAD_FACTS; i += clients.length) {
          const f = generateFact(i, PRELOAD_FACTS);
          const scope = f.scope === "shared" ? "shared" : c % 2 ? "team-b" : "team-a";
          await preload.time(client, "memory_store", { name: f.name, description: f.description, type: f.type, body: f.body, scope });
          readableBy.forEach((names, reader) => (scope === "shared" || reader % 2 === c % 2) && names.push(f.name));
        }
        await preload.time(client, "create_entities", {
          entities: [{ name: `Agent ${c}`, entityType: "agent", observations: [`soak client ${c}`] }],
        });
      }),
    );
    const preloadErrors = [...preload.errors.values()].reduce((a, b) => a + b, 0);
    if (preloadErrors > 0) throw new Error(`preload failed: ${preload.firstErrors.join("\n")}`);

    const tally = new Tally();
    const queue = new ReviewQueue();
    const rss: Array<{ at: number; mib: number }> = [{ at: 0, mib: svc.rssMiB() }];
    const started = performance.now();
    const rssTimer = setInterval(() => rss.push({ at: Math.round((performance.now() - started) / 1000), mib: svc.rssMiB() }), RSS_EVERY_MS);
    const deadline = started + seconds * 1000;

    await Promise.all(
      clients.map(async (client, c) => {
        const random = rng(1000 + c);
        const scope = c % 2 ? "team-b" : "team-a";
        for (let n = 0; performance.now() < deadline; n++) {
          const key = `c${c}-${n}`;
          const dice = random();
          if (dice < 0.3) {
            await tally.time(client, "memory_recall", { keywords: [area((["en", "ja", "ko"] as const)[n % 3]!, Math.floor(random() * 200))], limit: 10 });
          } else if (dice < 0.38) {
            const readable = readableBy[c]!;
            await tally.time(client, "memory_get", { name: readable[Math.floor(random() * readable.length)]! });
          } else if (dice < 0.5) {
            const s = random() < 0.5 ? "shared" : scope;
            const stored = await tally.time(client, "memory_store", {
              name: `soak-${key}`,
              description: `Soak fact ${key}: check the ${area("en", n % 200)} before changing it`,
              type: "project",
              body: `Written by client ${c} during the soak, iteration ${n}.`,
              scope: s,
            });
            if (stored) queue.push({ name: `soak-${key}`, scope: s, author: c });
          } else if (dice < 0.58) {
            const draft = queue.take(c);
            if (draft) await tally.time(client, "memory_promote", { name: draft.name, scope: draft.scope, to: "confirmed", reason: `reviewed by client ${c}` });
          } else if (dice < 0.7) {
            const k = { action: "publish_post", target: `soak/${key}` };
            if (await tally.time(client, "ledger_claim", { ...k, ttl_seconds: 60 })) {
              await tally.time(client, "ledger_record", { ...k, evidence: `https://blog.example/soak/${key}` });
            }
          } else if (dice < 0.75) {
            await tally.time(client, "ledger_check", { action: "publish_post", target: `soak/c${Math.floor(random() * clients.length)}-${Math.floor(random() * (n + 1))}` });
          } else if (dice < 0.82) {
            await tally.time(client, "create_entities", { entities: [{ name: `Thing ${key}`, entityType: "thing", observations: [`made by client ${c}`] }] });
          } else if (dice < 0.9) {
            await tally.time(client, "add_observations", { observations: [{ entityName: `Agent ${c}`, contents: [`iteration ${n}`] }] });
          } else {
            await tally.time(client, "search_nodes", { query: `client ${Math.floor(random() * clients.length)}`, limit: 20 });
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(rssTimer);
    rss.push({ at: Math.round(elapsed), mib: svc.rssMiB() });
    await Promise.all(clients.map((c) => c.close()));

    const tools = [...tally.samples.keys()].sort();
    const rows = tools.map((tool) => {
      const s = summarize(tally.samples.get(tool)!);
      return [tool, String(s.n), String(tally.errors.get(tool) ?? 0), s.p50, s.p99];
    });
    const calls = tools.reduce((n, t) => n + tally.samples.get(t)!.length, 0);
    const errors = [...tally.errors.values()].reduce((a, b) => a + b, 0);
    rows.push(["all", String(calls), String(errors), summarize(tools.flatMap((t) => tally.samples.get(t)!)).p50, summarize(tools.flatMap((t) => tally.samples.get(t)!)).p99]);
    printTable(`Soak: ${clientCount} clients for ${round(elapsed, 0)} s, ${round(calls / elapsed, 0)} calls/s`, ["tool", "calls", "errors", "p50 ms", "p99 ms"], rows);
    printTable("Service RSS (MiB) over time", ["at s", "RSS MiB"], rss.map((r) => [String(r.at), r.mib]));
    const start = rss[0]!.mib;
    const end = rss[rss.length - 1]!.mib;
    console.log(`\nService RSS: start ${start.toFixed(0)} MiB, end ${end.toFixed(0)} MiB, peak ${svc.peakRssMiB().toFixed(0)} MiB`);
    console.log(errors === 0 ? "Errors: 0" : `Errors: ${errors}\n${tally.firstErrors.join("\n")}`);

    const report = {
      date: new Date().toISOString(),
      seconds: elapsed,
      clients: clientCount,
      calls,
      errors,
      callsPerSecond: calls / elapsed,
      perTool: Object.fromEntries(tools.map((t) => [t, { ...summarize(tally.samples.get(t)!), errors: tally.errors.get(t) ?? 0 }])),
      rssMiB: { series: rss, start, end, peak: svc.peakRssMiB() },
      firstErrors: tally.firstErrors,
    };
    const out = values.out ?? fileURLToPath(new URL(`./results/soak-${report.date.replace(/[:.]/g, "-")}.json`, import.meta.url));
    mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2));
    console.log(`Figures written to ${out}`);
    if (errors > 0) process.exitCode = 1;
  } finally {
    await service?.stop();
    await database.drop();
  }
}

await main();
