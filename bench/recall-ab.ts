// Recall, two builds side by side in one run: each build migrates and serves
// its own database holding the same 100,000-fact corpus (a build's functions,
// am_recall among them, belong to its migrations), and the rounds alternate
// A B A B, whoami then a ten-hit recall, so that other load hits both.
//
//   npx tsc -p tsconfig.build.json --outDir bench/results/base/dist && cp -r sql package.json bench/results/base/
//     (from a checkout of the other commit, into this checkout's bench/results/base)
//   npm run build && node --no-warnings --import tsx bench/recall-ab.ts --base bench/results/base/dist [--facts 100000] [--calls 1000] [--rounds 6]
//
// Prints per build the p50 of each call, the service's CPU per call (from
// /proc), and recall ÷ whoami (issue 17's target: at most 2).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { openPostgres } from "../src/db/postgres.js";
import { call, connect } from "./lib/clients.js";
import { RARE_WORD } from "./lib/corpus.js";
import { insertCorpus } from "./lib/load-facts.js";
import { createDatabase, startBenchService, type BenchService } from "./lib/service.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    facts: { type: "string", default: "100000" },
    calls: { type: "string", default: "1000" },
    rounds: { type: "string", default: "6" },
  },
});
if (!values.base) throw new Error("--base DIR: the dist folder of the other build (see the comment at the top)");
const total = Number(values.facts);
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const builds = { A: resolve(values.base, "cli/main.js"), B: fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)) };

/** User + system CPU of a process so far, in µs. */
const cpuMicros = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const databases: Array<{ drop(): Promise<void> }> = [];
const services: BenchService[] = [];
try {
  const sides: Record<"A" | "B", { service: BenchService; client: Client }> = {} as never;
  for (const side of ["A", "B"] as const) {
    const database = await createDatabase(baseUrl, `am_recall_ab_${side.toLowerCase()}_${process.pid}`);
    databases.push(database);
    const env = { PATH: process.env.PATH, DATABASE_URL: database.url, LOG_LEVEL: "warn" };
    // The build's own CLI creates its schema and the agent.
    const { token } = JSON.parse(execFileSync(process.execPath, [builds[side], "agent", "add", "ab-reader", "--scopes", "shared,team-a,team-b", "--json"], { env }).toString()) as { token: string };
    const db = openPostgres({ connectionString: database.url, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
    const author = (await db.query<{ id: number }>("select id from agents where name = 'ab-reader'")).rows[0]!.id;
    console.log(`${side}: loading ${total.toLocaleString("en-US")} facts…`);
    await insertCorpus(db, total, author);
    await db.close();
    const service = await startBenchService(database.url, {}, { cli: builds[side] });
    services.push(service);
    sides[side] = { service, client: await connect(service.mcpUrl, token) };
  }
  const kinds: Array<[string, string, Record<string, unknown>]> = [
    ["whoami", "whoami", {}],
    [`recall (${RARE_WORD}, 10 hits)`, "memory_recall", { keywords: [RARE_WORD] }],
  ];
  for (const side of ["A", "B"] as const) for (const [, tool, args] of kinds) for (let i = 0; i < 300; i++) await call(sides[side].client, tool, args);
  const samples = new Map<string, { p50: number[]; cpu: number[] }>();
  for (let r = 0; r < rounds; r++) {
    for (const side of ["A", "B"] as const) {
      for (const [label, tool, args] of kinds) {
        const { client, service } = sides[side];
        const walls: number[] = [];
        const c0 = cpuMicros(service.pid);
        for (let i = 0; i < calls; i++) {
          const t0 = performance.now();
          await call(client, tool, args);
          walls.push(performance.now() - t0);
        }
        const s = samples.get(`${label} ${side}`) ?? { p50: [], cpu: [] };
        s.p50.push(median(walls) * 1000);
        s.cpu.push((cpuMicros(service.pid) - c0) / calls);
        samples.set(`${label} ${side}`, s);
      }
    }
  }
  const rows = (["A", "B"] as const).map((side) => {
    const [floor, recall] = kinds.map(([label]) => samples.get(`${label} ${side}`)!);
    return [side === "A" ? `A (${values.base})` : "B (this build)", median(floor!.p50).toFixed(0), median(recall!.p50).toFixed(0), median(floor!.cpu).toFixed(0), median(recall!.cpu).toFixed(0), median(recall!.p50) / median(floor!.p50)];
  });
  printTable(
    `Recall ÷ whoami at ${total.toLocaleString("en-US")} facts (µs; median of ${rounds} alternated rounds of ${calls} sequential calls)`,
    ["build", "whoami p50", "recall p50", "whoami service CPU", "recall service CPU", "recall ÷ whoami"],
    rows,
  );
  for (const side of ["A", "B"] as const) await sides[side].client.close();
} finally {
  for (const s of services) await s.stop();
  for (const d of databases) await d.drop();
}
