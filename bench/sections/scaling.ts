// The service against itself at several sizes, in one run: each selective read
// (one that returns a page of the same size whatever the scope holds) must cost
// about the same at every size. A read whose p50 at the largest size is more
// than SCALING_LIMIT times its p50 at the smallest fails the run (exit code 1):
// bounds that walked the scope to prove a call stayed within bounds once made
// such reads 10-250 times slower at 50,000 entities, and a run at one small
// size could not see it. Sizes take turns call by call, so machine noise falls
// on all of them alike.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import os from "node:os";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { RARE_WORD } from "../lib/corpus.js";
import { CORPORA, type GraphCorpus, MIXED_JAPANESE_NEEDLE, MIXED_JAPANESE_SHORT, MIXED_SINGLE, SPRINT_NEEDLE } from "../lib/graph-corpus.js";
import { insertCorpus } from "../lib/load-facts.js";
import { summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

/** Largest p50 ÷ smallest-size p50 a selective read may reach. */
const SCALING_LIMIT = 2;

interface Read {
  label: string;
  run: (client: Client, n: number, k: number) => Promise<unknown>;
  /** Which client: the graph reader (every scope) or the size's own agent (recall reads every scope it may). */
  as: "graph" | "facts";
}

const graphScope = (corpus: GraphCorpus, n: number) => `scale-${corpus.name}-${n}`;
const factScope = (n: number) => `scale-facts-${n}`;

const READS: Read[] = [
  { label: "search_nodes, 10 hits", as: "graph", run: (c, n) => call(c, "search_nodes", { scope: graphScope(CORPORA.sprint!, n), query: SPRINT_NEEDLE }) },
  { label: "search_nodes, 1 hit", as: "graph", run: (c, n) => call(c, "search_nodes", { scope: graphScope(CORPORA.mixed!, n), query: MIXED_SINGLE }) },
  { label: "search_nodes, 10 hits, Japanese", as: "graph", run: (c, n) => call(c, "search_nodes", { scope: graphScope(CORPORA.mixed!, n), query: MIXED_JAPANESE_NEEDLE }) },
  { label: "search_nodes, 10 hits, Japanese, two characters", as: "graph", run: (c, n) => call(c, "search_nodes", { scope: graphScope(CORPORA.mixed!, n), query: MIXED_JAPANESE_SHORT }) },
  { label: "open_nodes, 5 names", as: "graph", run: (c, n, k) => call(c, "open_nodes", { scope: graphScope(CORPORA.sprint!, n), names: CORPORA.sprint!.openNames(k, n) }) },
  { label: "open_nodes, 5 names, mixed", as: "graph", run: (c, n, k) => call(c, "open_nodes", { scope: graphScope(CORPORA.mixed!, n), names: CORPORA.mixed!.openNames(k, n) }) },
  { label: "read_graph, first page of 100", as: "graph", run: (c, n) => call(c, "read_graph", { scope: graphScope(CORPORA.mixed!, n), limit: 100 }) },
  { label: "memory_recall, rare keyword (10 hits)", as: "facts", run: (c) => call(c, "memory_recall", { keywords: [RARE_WORD] }) },
];

/**
 * Each size's graphs, facts and fact reader, written straight through the
 * stores. Read right after loading, without ANALYZE, as a new team's agents
 * read what they just wrote: the statistics the planner has then are the ones
 * that led it astray before.
 */
async function load(databaseUrl: string, sizes: number[]): Promise<Map<number, string>> {
  const db = openPostgres({ connectionString: databaseUrl, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 10_000 });
  const tokens = new Map<number, string>();
  try {
    const loader = await createAgent(db, { name: "bench-scale-loader", kind: "agent", writeScopes: ["*"] });
    for (const n of sizes) {
      for (const corpus of [CORPORA.sprint!, CORPORA.mixed!]) {
        const w = { scope: graphScope(corpus, n), agentId: loader.id, maxChars: 4096 };
        for (let i = 0; i < n; i += 500) await createEntities(db, w, Array.from({ length: Math.min(500, n - i) }, (_, k) => corpus.entity(i + k, n)));
        for (let i = 0; i < n; i += 500) await createRelations(db, w, Array.from({ length: Math.min(500, n - i) }, (_, k) => corpus.relation(i + k, n)));
      }
      await insertCorpus(db, n, loader.id, { scope: factScope(n) });
      const name = `bench-scale-${n}`;
      await createAgent(db, { name, kind: "agent", writeScopes: [factScope(n)] });
      tokens.set(n, (await issueToken(db, name, null)).token);
    }
  } finally {
    await db.close();
  }
  return tokens;
}

export async function benchScaling(ctx: BenchContext): Promise<void> {
  const sizes = ctx.scalingSizes;
  const rounds = ctx.quick ? 40 : 60;
  ctx.log(`\nScaling: loading ${sizes.map((n) => n.toLocaleString("en-US")).join(", ")} entities (two graphs) and facts…`);
  const t0 = performance.now();
  const tokens = await load(ctx.service.databaseUrl, sizes);
  ctx.log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const graphClient = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
  const factClients = new Map<number, Client>();
  for (const n of sizes) factClients.set(n, await connect(ctx.service.mcpUrl, tokens.get(n)!));
  const samples = new Map<string, number[]>();
  try {
    // One warm-up round, then every read at every size in turn, round after round.
    for (let r = -1; r < rounds; r++) {
      for (const read of READS) {
        for (const n of sizes) {
          const client = read.as === "graph" ? graphClient : factClients.get(n)!;
          const start = performance.now();
          await read.run(client, n, r + 1);
          if (r >= 0) samples.set(`${read.label}@${n}`, [...(samples.get(`${read.label}@${n}`) ?? []), performance.now() - start]);
        }
      }
    }
  } finally {
    await graphClient.close();
    for (const c of factClients.values()) await c.close();
  }

  const smallest = sizes[0]!;
  const largest = sizes[sizes.length - 1]!;
  const rows: Array<Array<string | number>> = [];
  const results: Record<string, Record<number, number> & { ratio: number }> = {};
  const failed: string[] = [];
  for (const read of READS) {
    const p50 = Object.fromEntries(sizes.map((n) => [n, summarize(samples.get(`${read.label}@${n}`)!).p50])) as Record<number, number>;
    const ratio = p50[largest]! / p50[smallest]!;
    results[read.label] = { ...p50, ratio };
    const ok = ratio <= SCALING_LIMIT;
    if (!ok) failed.push(`${read.label}: ${ratio.toFixed(1)}×`);
    rows.push([read.label, ...sizes.map((n) => p50[n]!), ratio, ok ? "ok" : "FAIL"]);
  }
  printTable(
    `Scaling: our own p50 ms at each size (${rounds} rounds, sizes in turn; load average ${os.loadavg()[0]!.toFixed(1)}); fails past ${SCALING_LIMIT}× the smallest`,
    ["read", ...sizes.map((n) => n.toLocaleString("en-US")), `${largest.toLocaleString("en-US")} ÷ ${smallest.toLocaleString("en-US")}`, ""],
    rows,
  );
  ctx.results.scaling = { sizes, rounds, limit: SCALING_LIMIT, reads: results };
  if (failed.length > 0) ctx.fail(`Selective reads grow with the data (p50 at ${largest.toLocaleString("en-US")} over ${SCALING_LIMIT}× the p50 at ${smallest.toLocaleString("en-US")}): ${failed.join("; ")}`);
}
