// The per-call floor, two builds side by side in one run, and CPU profiles of
// one build. Both services serve the same database (same agent, same graph),
// and the rounds alternate A B A B so that other load on the machine hits both.
//
//   npm run build && node --no-warnings --import tsx bench/floor-ab.ts --base bench/results/base/dist
//   node --no-warnings --import tsx bench/floor-ab.ts --profile [--base DIR]   # CPU profiles into bench/results/prof/
//
// --base DIR is another build's dist folder (e.g. main built with
// `npx tsc -p tsconfig.build.json --outDir bench/results/base/dist`, plus
// `cp -r sql package.json bench/results/base/`). Without it, A and B are both this build.
// --side-b DIR puts another build on side B (e.g. the two builds swapped, for position bias).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, connect } from "./lib/clients.js";
import { createDatabase, startBenchService, type BenchService } from "./lib/service.js";
import { summarize } from "./lib/stats.js";
import { summarizeProfile } from "./lib/profile.js";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    // Side B's build (default this checkout's dist): with --base and --side-b swapped, a second run shows any position bias.
    "side-b": { type: "string" },
    profile: { type: "boolean", default: false },
    rounds: { type: "string", default: "12" },
    calls: { type: "string", default: "150" },
    entities: { type: "string", default: "1000" },
    // Which calls --profile profiles (memory_recall: a rare keyword among 500 facts).
    tools: { type: "string", default: "whoami,search_nodes" },
  },
});
const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** User + system CPU time of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const load = () => execFileSync("uptime").toString().trim().replace(/.*load/, "load");

const db = await createDatabase(baseUrl, "agent_memory_floor_ab");
const services: BenchService[] = [];
try {
  const token = (JSON.parse(
    execFileSync(process.execPath, [CLI, "agent", "add", "floor", "--scopes", "shared,graph", "--json"], {
      env: { PATH: process.env.PATH, DATABASE_URL: db.url, LOG_LEVEL: "warn" },
    }).toString(),
  ) as { token: string }).token;
  const n = Number(values.entities);
  // The graph section's shape: ten of n entities carry the needle.
  const entity = (i: number) => ({
    name: `entity-${i}`,
    entityType: ["person", "service", "project", "team"][i % 4]!,
    observations: [`created in sprint ${i % 97}`, `owned by team ${i % 13}${i % Math.floor(n / 10) === 3 ? " (kiwi-needle)" : ""}`],
  });
  const searchArgs = { scope: "graph", query: "kiwi-needle" };
  const recallArgs = { keywords: ["flamingo"] };
  const calls = Number(values.calls);

  if (values.profile) {
    const dir = resolve("bench/results/prof");
    mkdirSync(dir, { recursive: true });
    for (const tool of values.tools!.split(",") as Array<"whoami" | "search_nodes" | "memory_recall">) {
      const tmp = join(dir, `tmp-${Date.now()}`);
      mkdirSync(tmp);
      const cli = values.base ? resolve(values.base, "cli/main.js") : undefined;
      const service = await startBenchService(db.url, {}, { cli, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${tmp}`, "--cpu-prof-interval=100"] });
      const client = await connect(service.mcpUrl, token);
      if (tool === "search_nodes") await loadGraph(client);
      if (tool === "memory_recall") await loadFacts(client);
      const args = tool === "whoami" ? {} : tool === "search_nodes" ? searchArgs : recallArgs;
      for (let i = 0; i < 300; i++) await call(client, tool, args);
      const total = 3000;
      const t0 = performance.now();
      for (let i = 0; i < total; i++) await call(client, tool, args);
      const ms = performance.now() - t0;
      await client.close();
      await service.stop();
      const file = join(dir, `${tool}${values.base ? "-base" : ""}.cpuprofile`);
      renameSync(join(tmp, readdirSync(tmp)[0]!), file);
      console.log(`\n${tool}: ${total} sequential calls, ${(ms / total).toFixed(3)} ms per call (client's view); ${load()}`);
      console.log(`profile: ${file}`);
      console.log(summarizeProfile(file, total + 300));
    }
  } else {
    const a = values.base
      ? await startBenchService(db.url, {}, { cli: resolve(values.base, "cli/main.js") })
      : await startBenchService(db.url);
    services.push(a);
    const b = values["side-b"] ? await startBenchService(db.url, {}, { cli: resolve(values["side-b"], "cli/main.js") }) : await startBenchService(db.url);
    services.push(b);
    const clients = { A: await connect(a.mcpUrl, token), B: await connect(b.mcpUrl, token) };
    await loadGraph(clients.B);
    const samples: Record<string, number[]> = {};
    const cpu: Record<string, number> = {};
    const pids = { A: a.pid, B: b.pid };
    const rounds = Number(values.rounds);
    for (let r = 0; r < rounds; r++) {
      for (const side of ["A", "B"] as const) {
        for (const [tool, args] of [["whoami", {}], ["search_nodes", searchArgs]] as const) {
          const c = clients[side];
          const key = `${tool} ${side}`;
          samples[key] ??= [];
          const cpu0 = cpuMs(pids[side]);
          for (let i = 0; i < calls; i++) {
            const t0 = performance.now();
            await call(c, tool, args);
            // The first round of each side is warm-up.
            if (r > 0) samples[key].push(performance.now() - t0);
          }
          if (r > 0) cpu[key] = (cpu[key] ?? 0) + cpuMs(pids[side]) - cpu0;
        }
      }
    }
    console.log(`A = ${values.base ? `build in ${values.base}` : "this build"}; B = ${values["side-b"] ? `build in ${values["side-b"]}` : "this build"}. ${rounds - 1} rounds × ${calls} sequential calls each, alternated; ${load()}`);
    // Service CPU per call (user + system, from /proc) moves much less with other load than latency does.
    console.log("| call | A p50 ms | B p50 ms | A p99 ms | B p99 ms | A calls/s | B calls/s | A service CPU µs/call | B service CPU µs/call |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const tool of ["whoami", "search_nodes"]) {
      const sa = summarize(samples[`${tool} A`]!);
      const sb = summarize(samples[`${tool} B`]!);
      const f = (x: number) => x.toFixed(2);
      console.log(`| \`${tool}\` | ${f(sa.p50)} | ${f(sb.p50)} | ${f(sa.p99)} | ${f(sb.p99)} | ${(1000 / sa.mean).toFixed(0)} | ${(1000 / sb.mean).toFixed(0)} | ${((cpu[`${tool} A`]! * 1000) / sa.n).toFixed(0)} | ${((cpu[`${tool} B`]! * 1000) / sb.n).toFixed(0)} |`);
    }
    await clients.A.close();
    await clients.B.close();
  }

  async function loadFacts(client: Client): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const rare = i % 50 === 7 ? " (flamingo)" : "";
      await call(client, "memory_store", { name: `rule-${i}`, description: `Run the smoke tests before every change to service ${i}${rare}`, type: "project", body: `Why: incident ${i}. How to apply: run them, wait, then change.` });
    }
  }

  async function loadGraph(client: Client): Promise<void> {
    for (let i = 0; i < n; i += 100) {
      await call(client, "create_entities", { scope: "graph", entities: Array.from({ length: Math.min(100, n - i) }, (_, k) => entity(i + k)) });
    }
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query("vacuum analyze");
    await c.end();
  }
} finally {
  for (const s of services) await s.stop();
  await db.drop();
}
