// One hostile client against the embedded database: while it
// loops on the most expensive calls it can make (search_nodes with a
// 100,000-character query and with the longest query accepted, memory_recall
// with ten long keywords), how long do normal clients (whoami, memory_recall,
// open_nodes) and /healthz wait? Each phase runs the same normal clients, once
// alone and once beside the hostile one, against a service on PGlite (its own
// process and data folder) holding a graph of `entities` entities.
//
// AGENT_MEMORY_BENCH_CLI=/path/to/dist/cli/main.js runs it against another
// build (e.g. main's, for a before/after comparison in one sitting).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { rng } from "../lib/corpus.js";
import { summarize, type Summary } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const CLI = process.env.AGENT_MEMORY_BENCH_CLI ?? fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function words(n: number, seed: number): string {
  const r = rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: 3 + Math.floor(r() * 6) }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join("")).join(" ");
}

interface Embedded {
  mcpUrl: string;
  stop(): Promise<void>;
}

async function startEmbedded(dataDir: string): Promise<Embedded> {
  const child = spawn(process.execPath, [CLI, "serve", "--json"], {
    env: { PATH: process.env.PATH, AGENT_MEMORY_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", FIRST_START_OWNER: "false", AUTH_FAILURES_PER_MINUTE: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`embedded service exited with ${code}: ${out}`)));
  });
  return {
    mcpUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function tryCall(client: Client, name: string, args: Record<string, unknown>): Promise<"ok" | "refused" | "error"> {
  try {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    return r.isError ? "refused" : "ok";
  } catch {
    return "error";
  }
}

interface Phase {
  normal: Record<string, Summary>;
  healthz: Summary;
  healthzFailures: number;
  hostile?: { calls: number; ok: number; refused: number; error: number; p50: number };
}

async function runPhase(mcpUrl: string, normal: Client[], hostile: Client | undefined, seconds: number, entityNames: string[]): Promise<Phase> {
  const until = performance.now() + seconds * 1000;
  const samples: Record<string, number[]> = { whoami: [], memory_recall: [], open_nodes: [] };
  const healthz: number[] = [];
  let healthzFailures = 0;
  const hostileTimes: number[] = [];
  const outcomes = { ok: 0, refused: 0, error: 0 };
  const shapes: Array<[string, (i: number) => Record<string, unknown>]> = [
    ["whoami", () => ({})],
    ["memory_recall", () => ({ keywords: ["flamingo", "deploy"] })],
    ["open_nodes", (i) => ({ names: [entityNames[i % entityNames.length]!, entityNames[(i * 7) % entityNames.length]!] })],
  ];
  // The most expensive calls one client can make: past the limits (refused up
  // front since docs/limits.md; the old code ran them), and just within them.
  const within = (seed: number, chars: number, from = 0) => words(60, seed).repeat(40).slice(from, from + chars);
  const hostileCalls: Array<[string, Record<string, unknown>]> = [
    ["search_nodes", { query: words(15_000, 7).slice(0, 100_000) }],
    ["search_nodes", { query: within(11, 1000) }],
    ["memory_recall", { keywords: Array.from({ length: 10 }, (_, k) => words(40, 100 + k).slice(0, 200)) }],
    ["memory_recall", { keywords: Array.from({ length: 10 }, (_, k) => within(12, 200, k * 37)) }],
  ];
  const healthUrl = mcpUrl.replace(/\/mcp$/, "/healthz");
  await Promise.all([
    ...normal.map(async (client, c) => {
      const [name, args] = shapes[c % shapes.length]!;
      for (let i = 0; performance.now() < until; i++) {
        const t0 = performance.now();
        await tryCall(client, name, args(i));
        samples[name]!.push(performance.now() - t0);
      }
    }),
    (async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        // A frozen service lets keep-alive sockets expire under the client: a
        // reset counts as a failed poll, timed until it failed.
        await fetch(healthUrl)
          .then((r) => r.arrayBuffer())
          .catch(() => healthzFailures++);
        healthz.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })(),
    (async () => {
      if (!hostile) return;
      for (let i = 0; performance.now() < until; i++) {
        const [name, args] = hostileCalls[i % hostileCalls.length]!;
        const t0 = performance.now();
        outcomes[await tryCall(hostile, name, args)]++;
        hostileTimes.push(performance.now() - t0);
      }
    })(),
  ]);
  return {
    normal: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])),
    healthz: summarize(healthz),
    healthzFailures,
    ...(hostile ? { hostile: { calls: hostileTimes.length, ...outcomes, p50: summarize(hostileTimes).p50 } } : {}),
  };
}

export async function benchHostile(ctx: BenchContext): Promise<void> {
  const entities = ctx.quick ? 1000 : 8000;
  const seconds = ctx.quick ? 2 : 10;
  const dataDir = mkdtempSync(join(tmpdir(), "am-bench-hostile-"));
  try {
    const env = { PATH: process.env.PATH, AGENT_MEMORY_DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    const token = (JSON.parse(execFileSync(process.execPath, [CLI, "agent", "add", "bench-embedded", "--scopes", "shared", "--json"], { env }).toString()) as { token: string }).token;
    let service = await startEmbedded(dataDir);
    const names: string[] = [];
    {
      const loader = await connect(service.mcpUrl, token);
      for (let start = 0; start < entities; start += 500) {
        const batch = Array.from({ length: Math.min(500, entities - start) }, (_, k) => {
          const i = start + k;
          return { name: `entity-${i}-${words(2, i)}`, entityType: ["person", "project", "tool"][i % 3]!, observations: [words(12, i * 3 + 1), words(12, i * 3 + 2)] };
        });
        names.push(...batch.map((e) => e.name));
        await loader.callTool({ name: "create_entities", arguments: { entities: batch } });
      }
      await loader.callTool({ name: "memory_store", arguments: { name: "flamingo-deploy", scope: "shared", type: "project", description: "flamingo deploy rule", body: "Deploy flamingo after migrations." } });
      await loader.close();
    }
    // A restart runs VACUUM ANALYZE (PGlite has no autovacuum): the steady state.
    await service.stop();
    service = await startEmbedded(dataDir);
    const normal = await Promise.all(Array.from({ length: 3 }, () => connect(service.mcpUrl, token)));
    const hostile = await connect(service.mcpUrl, token);
    const quiet = await runPhase(service.mcpUrl, normal, undefined, seconds, names);
    const attacked = await runPhase(service.mcpUrl, normal, hostile, seconds, names);
    await Promise.all([...normal, hostile].map((c) => c.close()));
    await service.stop();

    const rows: Array<Array<string | number>> = [];
    for (const name of ["whoami", "memory_recall", "open_nodes"]) {
      rows.push([name, quiet.normal[name]!.p50, quiet.normal[name]!.p99, attacked.normal[name]!.p50, attacked.normal[name]!.p99]);
    }
    rows.push(["/healthz", quiet.healthz.p50, quiet.healthz.p99, attacked.healthz.p50, attacked.healthz.p99]);
    printTable(
      `Hostile client on PGlite, ${entities} entities, ${seconds} s per phase (ms; CLI ${CLI})`,
      ["normal client", "alone p50", "alone p99", "w/ hostile p50", "w/ hostile p99"],
      rows,
    );
    ctx.log(`/healthz polls failed: ${quiet.healthzFailures} alone, ${attacked.healthzFailures} with the hostile client`);
    const h = attacked.hostile!;
    ctx.log(`hostile client: ${h.calls} calls (${h.ok} answered, ${h.refused} refused, ${h.error} failed), p50 ${h.p50.toFixed(1)} ms`);
    ctx.results.hostile = { entities, seconds, cli: CLI, quiet, attacked };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
