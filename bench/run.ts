// npm run bench [-- --quick] [-- --facts 100000] [-- --graph-sizes 1000,10000,50000] [-- --graph-corpora sprint,mixed]
//   [-- --scaling-sizes 1000,10000,50000] [-- --sections floor,facts,quality] [-- --service-cli ../other/dist/cli/main.js]
//   [-- --sections replicas] (not in the default set: it makes its own Postgres clusters)
//   [-- --sections meaning] (not in the default set: recall by meaning on an embedded database of --facts facts)
//   [-- --sections scale --scale-facts 1000000 --scale-entities 500000] (not in the default set: a year of a team's memory)
//
// Starts the service as its own process against a fresh Postgres database, drives
// it only through real MCP clients over HTTP with real tokens (agents made by the
// real CLI), prints tables and writes every figure to bench/results/*.json, with
// a chart of them beside it (*.svg, bench/lib/chart.tsx).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { createAgent, issueToken } from "../src/auth/store.js";
import { openPostgres } from "../src/db/postgres/postgres.js";
import { printSummary } from "./lib/summary.js";
import { renderBenchChart } from "./lib/chart.js";
import type { BenchAgent, BenchContext } from "./lib/context.js";
import { CLI, createDatabase, startBenchService } from "./lib/service.js";
import { benchAnswers } from "./sections/answers.js";
import { benchBreakdown } from "./sections/breakdown.js";
import { benchConsole } from "./sections/console.js";
import { benchCosts } from "./sections/costs.js";
import { benchFacts } from "./sections/facts.js";
import { benchFloor } from "./sections/floor.js";
import { benchGraph } from "./sections/graph.js";
import { benchHostile } from "./sections/hostile.js";
import { benchLedger } from "./sections/ledger.js";
import { benchMeaning } from "./sections/meaning.js";
import { benchQuality } from "./sections/quality.js";
import { benchReplicas } from "./sections/replicas.js";
import { benchScale } from "./sections/scale.js";
import { benchScaling } from "./sections/scaling.js";
import { benchWorkers } from "./sections/workers.js";

const SECTIONS: Record<string, (ctx: BenchContext) => Promise<void>> = {
  floor: benchFloor,
  facts: benchFacts,
  // Right after facts, on its corpus: one call's time, part by part, from its trace.
  breakdown: benchBreakdown,
  ledger: benchLedger,
  graph: benchGraph,
  answers: benchAnswers,
  quality: benchQuality,
  // After facts and graph: it pages through what they loaded.
  console: benchConsole,
  // Our own selective reads at several sizes; fails the run when they grow with the data.
  scaling: benchScaling,
  // On its own embedded (PGlite) service, not the Postgres one the others share.
  hostile: benchHostile,
  // Its own services (1 and 2 worker processes) on the shared database, after facts.
  workers: benchWorkers,
  // Its own three services: recall with receipts on and off, whoami with tracing on and off.
  costs: benchCosts,
  // Its own clusters (a primary and a standby) and services; only when asked for (--sections replicas).
  replicas: benchReplicas,
  // A team's year of memory (1,000,000 facts, 500,000 entities) through `agent-memory import`; only when asked for (--sections scale).
  scale: benchScale,
  // Recall by meaning on an embedded database of --facts facts, every one embedded (tens of minutes at 100,000); only when asked for (--sections meaning).
  meaning: benchMeaning,
};
/** Sections that run only when named: their own clusters, or a load of tens of minutes. */
const ON_DEMAND = new Set(["replicas", "scale", "meaning"]);
const DEFAULT_SECTIONS = Object.keys(SECTIONS).filter((name) => !ON_DEMAND.has(name));

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    sections: { type: "string", default: DEFAULT_SECTIONS.join(",") },
    facts: { type: "string" },
    "graph-sizes": { type: "string" },
    "graph-corpora": { type: "string" },
    "scaling-sizes": { type: "string" },
    "scale-facts": { type: "string" },
    "scale-entities": { type: "string" },
    // Another build's CLI (its dist/cli/main.js) as the service under test: a bisect, or a before/after.
    "service-cli": { type: "string" },
    "database-url": { type: "string" },
    out: { type: "string" },
  },
});

const quick = values.quick!;
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

function cliAgent(databaseUrl: string, name: string, args: string[]): BenchAgent {
  const out = execFileSync(process.execPath, [CLI, "agent", "add", name, ...args, "--json"], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
  }).toString();
  const parsed = JSON.parse(out) as { token: string };
  return { name, token: parsed.token };
}

/** Fifty agents for the race tests, made with the store functions (the CLI would take half a minute). */
async function createRacers(databaseUrl: string, n: number): Promise<BenchAgent[]> {
  const db = openPostgres({ connectionString: databaseUrl, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 });
  try {
    const racers: BenchAgent[] = [];
    for (let i = 0; i < n; i++) {
      const name = `bench-racer-${i}`;
      await createAgent(db, { name, kind: "agent", writeScopes: ["shared"] });
      racers.push({ name, token: (await issueToken(db, name, null)).token });
    }
    return racers;
  } finally {
    await db.close();
  }
}

async function versions(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const pgVersion = (await client.query<{ v: string }>("select version() as v")).rows[0]!.v;
  await client.end();
  // The SDK's package.json is not in its exports map; read it from disk.
  const sdk = JSON.parse(readFileSync(fileURLToPath(new URL("../node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url)), "utf8")) as { version: string };
  return { node: process.version, sdk: sdk.version, postgres: pgVersion, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, platform: `${os.platform()} ${os.release()}` };
}

async function main() {
  const started = new Date();
  const dbName = `am_bench_${process.pid}`;
  const database = await createDatabase(baseUrl, dbName);
  console.log(`agent-memory benchmark${quick ? " (quick)" : ""}: database ${dbName}`);
  const writers = [
    cliAgent(database.url, "bench-writer-a", ["--scopes", "shared,team-a"]),
    cliAgent(database.url, "bench-writer-b", ["--scopes", "shared,team-b"]),
    cliAgent(database.url, "bench-writer-c", ["--scopes", "shared,team-a,team-b"]),
    cliAgent(database.url, "bench-writer-d", ["--scopes", "shared"]),
  ];
  const reviewer = cliAgent(database.url, "bench-reviewer", ["--kind", "human", "--scopes", "*"]);
  const racers = await createRacers(database.url, 50);
  const service = await startBenchService(database.url, { DB_POOL_MAX: "20" }, values["service-cli"] ? { cli: values["service-cli"] } : {});
  const results: Record<string, unknown> = {};
  const factsCount = Number(values.facts ?? (quick ? 1000 : 100_000));
  const graphSizes = (values["graph-sizes"] ?? (quick ? "200,1000" : "1000,10000,50000")).split(",").map(Number);
  const graphCorpora = (values["graph-corpora"] ?? "sprint,mixed").split(",").map((c) => c.trim());
  const scalingSizes = (values["scaling-sizes"] ?? (quick ? "1000,10000" : "1000,10000,50000")).split(",").map(Number).sort((a, b) => a - b);
  const scale = { facts: Number(values["scale-facts"] ?? (quick ? 2000 : 1_000_000)), entities: Number(values["scale-entities"] ?? (quick ? 2000 : 500_000)) };
  const failures: string[] = [];
  const ctx: BenchContext = {
    quick,
    factsCount,
    graphSizes,
    graphCorpora,
    scalingSizes,
    scale,
    service,
    agents: { writers, reviewer, racers },
    results,
    log: (l) => console.log(l),
    fail: (reason) => failures.push(reason),
  };
  const rss: number[] = [];
  /** Where the run's time goes, section by section (the whole run has a time budget: bench/README.md). */
  const sectionSeconds: Record<string, number> = {};
  const rssTimer = setInterval(() => rss.push(service.rssMiB()), 500);
  try {
    const env = await versions(database.url);
    console.log(`node ${env.node}, SDK ${env.sdk}, ${env.cpus} CPUs (${env.cpuModel}), ${env.postgres.split(",")[0]}`);
    for (const name of values.sections!.split(",")) {
      const section = SECTIONS[name.trim()];
      if (!section) throw new Error(`unknown section "${name}"; known: ${Object.keys(SECTIONS).join(", ")}`);
      const sectionStarted = performance.now();
      await section(ctx);
      sectionSeconds[name.trim()] = (performance.now() - sectionStarted) / 1000;
    }
    console.log(`\nSection times: ${Object.entries(sectionSeconds).map(([n, s]) => `${n} ${s.toFixed(0)} s`).join(", ")}`);
    const peak = service.peakRssMiB();
    console.log(`\nService RSS: start ${rss[0]?.toFixed(0) ?? "?"} MiB, end ${service.rssMiB().toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (target ≤ 250)`);
    const report = {
      date: started.toISOString(),
      durationSeconds: (Date.now() - started.getTime()) / 1000,
      sectionSeconds,
      quick,
      environment: env,
      serviceRssMiB: { start: rss[0], end: service.rssMiB(), peak },
      results,
    };
    const out = values.out ?? fileURLToPath(new URL(`./results/bench-${started.toISOString().replace(/[:.]/g, "-")}.json`, import.meta.url));
    mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2));
    // The chart of the same figures, next to the JSON (bench/README.md shows one).
    const chart = out.replace(/\.json$/, "") + ".svg";
    writeFileSync(chart, renderBenchChart(report));
    printSummary(results, report.durationSeconds, peak, failures);
    console.log(`\nFigures written to ${out}, chart to ${chart}`);
    if (failures.length > 0) {
      console.error(`\nFAILED:\n${failures.map((f) => `- ${f}`).join("\n")}`);
      process.exitCode = 1;
    }
  } finally {
    clearInterval(rssTimer);
    await service.stop();
    await database.drop();
  }
}

await main();
