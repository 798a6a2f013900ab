// A team's year of memory, on demand (`--sections scale`; never in the default
// run or CI): N facts and M entities with as many relations, loaded through
// `agent-memory import` of snapshot trees (bench/lib/scale-tree.ts), the bulk
// path every team has, then the selective reads at that size beside whoami,
// the duplicate check, the console's review queue and the service's RSS. A
// missed target is printed as such: the section reports, it fails nothing.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { call, connect, timeBeside, timeSequential } from "../lib/clients.js";
import { signIn, timePage } from "../lib/console-pages.js";
import type { BenchContext } from "../lib/context.js";
import { area, distinctFact, RARE_WORD } from "../lib/corpus.js";
import { CORPORA, MIXED_JAPANESE_NEEDLE, MIXED_SINGLE, SPRINT_NEEDLE } from "../lib/graph-corpus.js";
import { graphScope, SCALE_READER, SCALE_SCOPES, SMALL_GRAPH, writeFactsTree, writeGraphTree } from "../lib/scale-tree.js";
import { CLI } from "../lib/service.js";
import { type Summary, summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";
import { FACT_TABLES, vacuumAnalyze } from "../lib/vacuum.js";

const run = promisify(execFile);

/** The Postgres settings the figures depend on (bench/README.md, "Scale"), as the server has them. */
const SETTINGS = ["shared_buffers", "work_mem", "maintenance_work_mem", "effective_cache_size"];

/** The real CLI against the bench's database, as an operator runs it: its --json answer and the seconds it took. */
async function cli(databaseUrl: string, args: string[]): Promise<{ json: unknown; seconds: number }> {
  const t0 = performance.now();
  const { stdout } = await run(process.execPath, [CLI, ...args, "--json"], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
    // An import's report lists every file.
    maxBuffer: 1024 ** 3,
  });
  return { json: JSON.parse(stdout), seconds: (performance.now() - t0) / 1000 };
}

interface ImportReport {
  facts: Record<string, number>;
  graphs: Array<{ scope: string; report: { entities: { created: number }; relations: { created: number }; invalidCount: number } }>;
}

interface Target {
  label: string;
  figure: number;
  unit: string;
  /** Met when the figure is at most this (at least, with `atLeast`). */
  limit: number;
  atLeast?: boolean;
}

/** Both trees written to a temporary folder and imported, each timed on its own; the folder is removed after. */
async function load(ctx: BenchContext, large: number) {
  const work = await mkdtemp(join(os.tmpdir(), "am-bench-scale-"));
  try {
    const t0 = performance.now();
    const now = Date.now();
    await writeFactsTree(join(work, "facts"), ctx.scale.facts, now);
    const entities = await writeGraphTree(join(work, "graph"), large, now);
    ctx.log(`  snapshot trees written in ${((performance.now() - t0) / 1000).toFixed(0)} s; importing them with agent-memory import…`);
    // Two trees, the facts one first (its agents.jsonl makes the authors the graph's lines name), each rate timed on its own.
    const facts = await cli(ctx.service.databaseUrl, ["import", join(work, "facts")]);
    const graph = await cli(ctx.service.databaseUrl, ["import", join(work, "graph")]);
    const factReport = (facts.json as ImportReport).facts;
    const graphs = (graph.json as ImportReport).graphs;
    const created = graphs.reduce((n, g) => n + g.report.entities.created, 0);
    if (factReport.created !== ctx.scale.facts || created !== entities) {
      throw new Error(`scale: the import created ${factReport.created} of ${ctx.scale.facts} facts and ${created} of ${entities} entities: ${JSON.stringify({ factReport, graphs })}`);
    }
    return {
      factsSeconds: facts.seconds,
      factsPerSecond: ctx.scale.facts / facts.seconds,
      graphSeconds: graph.seconds,
      entities,
      relations: graphs.reduce((n, g) => n + g.report.relations.created, 0),
      entitiesPerSecond: entities / graph.seconds,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function benchScale(ctx: BenchContext): Promise<void> {
  const { facts: factCount, entities: entityCount } = ctx.scale;
  // Half the entities in each graph corpus, beside each at 1,000 (what the reads are compared with).
  const large = Math.max(SMALL_GRAPH, Math.round(entityCount / 2));
  const admin = new pg.Client({ connectionString: ctx.service.databaseUrl });
  // If this section fails, the run drops the database under this connection: its end must not hide the error.
  admin.on("error", () => undefined);
  await admin.connect();
  const settings = Object.fromEntries(
    (await admin.query<{ name: string; setting: string }>("select name, current_setting(name) as setting from pg_settings where name = any($1::text[]) order by name", [SETTINGS])).rows.map((r) => [
      r.name,
      r.setting,
    ]),
  );
  ctx.log(
    `\nScale: ${factCount.toLocaleString("en-US")} facts and ${entityCount.toLocaleString("en-US")} entities through agent-memory import; ` +
      `Postgres ${Object.entries(settings).map(([k, v]) => `${k} ${v}`).join(", ")}`,
  );
  const imported = await load(ctx, large);
  ctx.log(
    `  facts ${imported.factsSeconds.toFixed(1)} s (${imported.factsPerSecond.toFixed(0)}/s); ` +
      `graph ${imported.graphSeconds.toFixed(1)} s for ${imported.entities.toLocaleString("en-US")} entities and ${imported.relations.toLocaleString("en-US")} relations (${imported.entitiesPerSecond.toFixed(0)} entities/s)`,
  );
  // The import analyses the graphs it loads; the facts tables get what autovacuum would give them within a minute.
  await vacuumAnalyze(admin, FACT_TABLES);
  await admin.end();

  // An import carries no tokens: the reader gets one as a team's agents would.
  const token = ((await cli(ctx.service.databaseUrl, ["token", "issue", SCALE_READER])).json as { token: string }).token;
  const reader = await connect(ctx.service.mcpUrl, token);
  const graphReader = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
  const n = ctx.quick ? 40 : 300;
  const latency: Record<string, Summary> = {};
  const ratios: Record<string, number> = {};
  try {
    await timeSequential(reader, Math.min(50, n), () => call(reader, "whoami"));
    // The keywords of the facts section, on the reader's scopes (the scale corpus alone).
    const recalls: Array<[string, string]> = [
      [`rare keyword (${RARE_WORD})`, RARE_WORD],
      ["Japanese keyword", area("ja", 3)],
      ["Korean keyword", area("ko", 5)],
    ];
    for (const [label, keyword] of recalls) {
      const samples = await timeBeside(reader, n, () => call(reader, "memory_recall", { keywords: [keyword] }));
      latency[`memory_recall: ${label}`] = summarize(samples.call);
      latency[`whoami beside the ${label}`] = summarize(samples.whoami);
      ratios[`memory_recall: ${label} ÷ whoami beside`] = summarize(samples.call).p50 / summarize(samples.whoami).p50;
    }

    // Each read at the large size and at 1,000 entities, the sizes in turn call by call, so machine noise falls on both alike.
    const graphReads: Array<[string, (size: number, k: number) => Promise<unknown>]> = [
      ["search_nodes, 10 hits", (size) => call(graphReader, "search_nodes", { scope: graphScope(CORPORA.sprint!, size), query: SPRINT_NEEDLE })],
      ["search_nodes, 1 hit, mixed", (size) => call(graphReader, "search_nodes", { scope: graphScope(CORPORA.mixed!, size), query: MIXED_SINGLE })],
      ["search_nodes, 10 hits, Japanese", (size) => call(graphReader, "search_nodes", { scope: graphScope(CORPORA.mixed!, size), query: MIXED_JAPANESE_NEEDLE })],
      ["open_nodes, 5 names", (size, k) => call(graphReader, "open_nodes", { scope: graphScope(CORPORA.sprint!, size), names: CORPORA.sprint!.openNames(k, size) })],
      ["open_nodes, 5 names, mixed", (size, k) => call(graphReader, "open_nodes", { scope: graphScope(CORPORA.mixed!, size), names: CORPORA.mixed!.openNames(k, size) })],
    ];
    for (const [label, read] of graphReads) {
      const samples = new Map<number, number[]>([[SMALL_GRAPH, []], [large, []]]);
      for (let k = -Math.min(20, n); k < n; k++) {
        for (const [size, into] of samples) {
          const t0 = performance.now();
          await read(size, Math.abs(k));
          if (k >= 0) into.push(performance.now() - t0);
        }
      }
      const [small, big] = [summarize(samples.get(SMALL_GRAPH)!), summarize(samples.get(large)!)];
      latency[`${label} at ${SMALL_GRAPH.toLocaleString("en-US")}`] = small;
      latency[`${label} at ${large.toLocaleString("en-US")}`] = big;
      ratios[`${label}: at ${large.toLocaleString("en-US")} ÷ at ${SMALL_GRAPH.toLocaleString("en-US")}`] = big.p50 / small.p50;
    }

    // New facts in the team's own words, with the duplicate check (the service's default) looking through the whole corpus.
    latency["memory_store (new), duplicate check on"] = await timeSequential(reader, n, (i) =>
      call(reader, "memory_store", { ...distinctFact(3_000_000 + i), type: "project", body: "Why: measuring. How to apply: ignore.", scope: SCALE_SCOPES[0] }),
    );
  } finally {
    await reader.close();
    await graphReader.close();
  }
  // The reviewer's queue: every draft of the year (a fifth of the corpus, and each revised fact) it may confirm.
  const base = ctx.service.mcpUrl.replace(/\/mcp$/, "");
  latency["console review queue (/console)"] = await timePage(base, await signIn(base, ctx.agents.reviewer.token), n, () => "/console");

  const rss = ctx.service.peakRssMiB();
  const targets: Target[] = [
    { label: "import: facts/s", figure: imported.factsPerSecond, unit: "/s", limit: 1000, atLeast: true },
    { label: "import: entities/s (relations included)", figure: imported.entitiesPerSecond, unit: "/s", limit: 5000, atLeast: true },
    ...Object.entries(ratios).map(([label, ratio]) => ({ label, figure: ratio, unit: "×", limit: label.startsWith("memory_recall") ? 2.5 : 2 })),
    { label: "memory_store (new), duplicate check on: p50", figure: latency["memory_store (new), duplicate check on"]!.p50, unit: "ms", limit: 10 },
    { label: "console review queue: p50", figure: latency["console review queue (/console)"]!.p50, unit: "ms", limit: 20 },
    { label: "service RSS peak (the run so far)", figure: rss, unit: "MiB", limit: 250 },
  ];
  const missed = (t: Target) => (t.atLeast ? t.figure < t.limit : t.figure > t.limit);
  printTable(
    `Scale: ${factCount.toLocaleString("en-US")} facts, ${entityCount.toLocaleString("en-US")} entities (ms, sequential, one client)`,
    ["call", "p50", "p95", "p99"],
    Object.entries(latency).map(([label, s]) => [label, s.p50, s.p95, s.p99]),
  );
  printTable(
    `Scale targets (load average ${os.loadavg()[0]!.toFixed(1)})`,
    ["measure", "figure", "target", ""],
    targets.map((t) => [t.label, t.figure, `${t.atLeast ? "≥" : "≤"} ${t.limit.toLocaleString("en-US")} ${t.unit}`, missed(t) ? "missed" : "ok"]),
  );
  for (const t of targets.filter(missed)) ctx.log(`missed: ${t.label}: ${t.figure.toFixed(2)} ${t.unit} (target ${t.atLeast ? "≥" : "≤"} ${t.limit.toLocaleString("en-US")} ${t.unit})`);
  ctx.results.scale = { facts: factCount, entities: entityCount, settings, import: imported, latency, ratios, serviceRssPeakMiB: rss, targets: targets.map((t) => ({ ...t, met: !missed(t) })) };
}
