// The knowledge graph side by side with the reference server: the same workload
// against both, in one run, at each size. Then the lost-write test for both.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import os from "node:os";
import pg from "pg";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { call, connect, timeSequential } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { CORPORA, type GraphCorpus } from "../lib/graph-corpus.js";
import { referenceFile } from "../lib/reference.js";
import type { Summary } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

/**
 * The reference's load is timed up to this size; past it the bench writes the
 * reference's file directly (as its own save would) and times its reads only.
 * It rewrites its whole file on every call: loading 50,000 entities through its
 * tools took ~5 minutes of the run and measured nothing the sizes below do not.
 */
const REFERENCE_LOAD_TIMED_UP_TO = 10_000;

interface Side {
  label: string;
  client: Client;
  args: Record<string, unknown>;
}

interface SizeResult {
  n: number;
  corpus: string;
  /** The reference's are absent past REFERENCE_LOAD_TIMED_UP_TO (its file written directly). */
  loadSeconds: Record<string, number | undefined>;
  relationSeconds: Record<string, number | undefined>;
  latency: Record<string, Record<string, Summary>>;
  readGraph: Record<string, { ms: number; bytes: number; entities: number; error?: string }>;
}

async function load(side: Side, corpus: GraphCorpus, n: number): Promise<[number, number]> {
  const t0 = performance.now();
  for (let i = 0; i < n; i += corpus.batch) {
    const entities = Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.entity(i + k, n));
    await call(side.client, "create_entities", { ...side.args, entities });
  }
  const t1 = performance.now();
  for (let i = 0; i < n; i += corpus.batch) {
    const relations = Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.relation(i + k, n));
    await call(side.client, "create_relations", { ...side.args, relations });
  }
  return [(t1 - t0) / 1000, (performance.now() - t1) / 1000];
}

async function measure(side: Side, corpus: GraphCorpus, n: number, iterations: number) {
  let k = 0;
  const latency: Record<string, Summary> = {};
  for (const { label, query } of corpus.searches(n)) {
    latency[label] = await timeSequential(side.client, iterations, () => call(side.client, "search_nodes", { ...side.args, query }));
  }
  latency["open_nodes (5 names)"] = await timeSequential(side.client, iterations, () => call(side.client, "open_nodes", { ...side.args, names: corpus.openNames(k++, n) }));
  latency.add_observations = await timeSequential(side.client, iterations, () =>
    call(side.client, "add_observations", { ...side.args, observations: [{ entityName: corpus.entity((k * 104729) % n, n).name, contents: [`benchmark note ${k++}`] }] }),
  );
  const t0 = performance.now();
  let readGraph: { ms: number; bytes: number; entities: number; error?: string };
  try {
    const r = (await side.client.callTool({ name: "read_graph", arguments: side.args }, undefined, { timeout: 300_000 })) as CallToolResult;
    const text = r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    const structured = r.structuredContent as { entities: unknown[] };
    readGraph = { ms: performance.now() - t0, bytes: Buffer.byteLength(text) + Buffer.byteLength(JSON.stringify(r.structuredContent ?? {})), entities: structured.entities.length };
  } catch (error) {
    readGraph = { ms: performance.now() - t0, bytes: NaN, entities: 0, error: (error as Error).message.slice(0, 120) };
  }
  return { latency, readGraph };
}

/**
 * Two clients write 500 single-entity create_entities each, at the same time;
 * how many of the acknowledged entities survive? "lanes": each client sends its
 * calls one after another (two agents working); "burst": all 500 at once.
 */
async function lostWrites(mode: "lanes" | "burst", clients: [Client, Client], args: Record<string, unknown>, count: () => Promise<number>) {
  let acknowledged = 0;
  let refused = 0;
  const create = async (ci: number, i: number) => {
    try {
      const r = (await clients[ci]!.callTool({ name: "create_entities", arguments: { ...args, entities: [{ name: `lw-${mode}-${ci}-${i}`, entityType: "t", observations: [] }] } })) as CallToolResult;
      if (!r.isError) acknowledged++;
    } catch {
      // A refusal (e.g. 503 when the pool is exhausted on a loaded machine) is
      // not an acknowledgement: the client knows the write did not happen.
      refused++;
    }
  };
  await Promise.all(
    [0, 1].map(async (ci) => {
      if (mode === "burst") return Promise.all(Array.from({ length: 500 }, (_, i) => create(ci, i)));
      for (let i = 0; i < 500; i++) await create(ci, i);
    }),
  );
  return { mode, acknowledged, refused, survived: await count() };
}

function fail(message: string): never {
  throw new Error(message);
}

async function refreshStatistics(databaseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query("vacuum analyze graph_entities, graph_observations, graph_relations");
  } finally {
    await admin.end();
  }
}

export async function benchGraph(ctx: BenchContext): Promise<void> {
  const token = ctx.agents.reviewer.token; // may write every scope
  const results: SizeResult[] = [];
  const corpora = ctx.graphCorpora.map((c) => CORPORA[c] ?? fail(`unknown graph corpus "${c}"; known: ${Object.keys(CORPORA).join(", ")}`));
  for (const corpus of corpora) {
    const skipped = ctx.graphSizes.filter((size) => size > (corpus.largestSize ?? Infinity));
    if (skipped.length > 0) ctx.log(`\nGraph "${corpus.name}" runs at ${corpus.largestSize!.toLocaleString("en-US")} entities at most: not at ${skipped.map((n) => n.toLocaleString("en-US")).join(", ")} (the run's time budget; the scaling section reads ours there).`);
  }
  const runs = corpora.flatMap((c) => ctx.graphSizes.filter((size) => size <= (c.largestSize ?? Infinity)).map((size) => [c, size] as const));
  for (const [corpus, n] of runs) {
    ctx.log(`\nGraph "${corpus.name}" at ${n.toLocaleString("en-US")} entities, ${corpus.batch} a call: loading both servers…`);
    const ours: Side = { label: "agent-memory", client: await connect(ctx.service.mcpUrl, token), args: { scope: `graph-${corpus.name}-${n}` } };
    const ref = referenceFile();
    const result: SizeResult = { n, corpus: corpus.name, loadSeconds: {}, relationSeconds: {}, latency: {}, readGraph: {} };
    // Past the sizes whose load is timed, the reference's file is written before its process starts.
    if (n > REFERENCE_LOAD_TIMED_UP_TO) {
      ref.write(
        Array.from({ length: n }, (_, i) => corpus.entity(i, n)),
        Array.from({ length: n }, (_, i) => corpus.relation(i, n)),
      );
    }
    const theirs: Side = { label: "reference", client: await ref.connect(), args: {} };
    const loaded = n <= REFERENCE_LOAD_TIMED_UP_TO ? [theirs, ours] : [ours];
    for (const side of loaded) {
      const [entitiesS, relationsS] = await load(side, corpus, n);
      result.loadSeconds[side.label] = entitiesS;
      result.relationSeconds[side.label] = relationsS;
    }
    // "sprint" refreshes the planner's statistics after the bulk load, as `graph
    // import` does and autovacuum within about a minute; "mixed" reads at once,
    // as a new user's agent would, ours first.
    if (corpus.analyze) await refreshStatistics(ctx.service.databaseUrl);
    // The reference re-reads its whole file on every call: fewer iterations at large sizes.
    const refIterations = ctx.quick ? 10 : n >= 50_000 ? 20 : n >= 10_000 ? 50 : 100;
    const ourIterations = ctx.quick ? 30 : 200;
    for (const [side, iterations] of [[ours, ourIterations], [theirs, refIterations]] as const) {
      const m = await measure(side, corpus, n, iterations);
      result.latency[side.label] = m.latency;
      result.readGraph[side.label] = m.readGraph;
    }
    await ours.client.close();
    ref.cleanup();
    results.push(result);

    const loadRow = (label: string, seconds: Record<string, number | undefined>): Array<string | number> => {
      const [r, o] = [seconds.reference, seconds["agent-memory"]!];
      return r === undefined ? [label, "(file written)", n / o, "–"] : [label, n / r, n / o, r / o];
    };
    const rows: Array<Array<string | number>> = [loadRow("load entities (per s)", result.loadSeconds), loadRow("load relations (per s)", result.relationSeconds)];
    for (const op of Object.keys(result.latency["agent-memory"]!)) {
      const r = result.latency.reference![op]!;
      const o = result.latency["agent-memory"]![op]!;
      rows.push([`${op} p50 ms`, r.p50, o.p50, r.p50 / o.p50]);
    }
    const rg = result.readGraph.reference!;
    const og = result.readGraph["agent-memory"]!;
    rows.push(["read_graph ms", rg.error ? `failed` : rg.ms, og.ms, rg.error ? "–" : rg.ms / og.ms]);
    rows.push(["read_graph bytes", rg.error ? "failed" : rg.bytes, og.bytes, ""]);
    rows.push(["read_graph entities returned", String(rg.entities), String(og.entities), ""]);
    const how = `${corpus.batch} a call${corpus.analyze ? ", analyzed before reading" : ", read right after loading"}`;
    printTable(`Graph "${corpus.name}" at ${n.toLocaleString("en-US")} entities (+${n.toLocaleString("en-US")} relations; ${how}; load average ${os.loadavg()[0]!.toFixed(1)})`, ["measure", "reference", "agent-memory", "ratio ref/ours"], rows);
    if (rg.error) ctx.log(`  reference read_graph failed: ${rg.error}`);
  }

  // Lost writes: two agents writing at once (the reference: two processes on one file, as two agents' clients run it).
  const lost: Array<{ server: string; mode: string; acknowledged: number; refused: number; survived: number }> = [];
  for (const mode of ["lanes", "burst"] as const) {
    const ref = referenceFile();
    const refClients = [await ref.connect(), await ref.connect()] as [Client, Client];
    lost.push({ server: "reference", ...(await lostWrites(mode, refClients, {}, async () => ref.entityCount())) });
    ref.cleanup();
    const scope = `lost-writes-${mode}`;
    const ourClients = [await connect(ctx.service.mcpUrl, token), await connect(ctx.service.mcpUrl, token)] as [Client, Client];
    lost.push({
      server: "agent-memory",
      ...(await lostWrites(mode, ourClients, { scope }, async () => {
        const r = await call(ourClients[0], "read_graph", { scope, limit: 1 });
        return (r.structuredContent as { totalEntities: number }).totalEntities;
      })),
    });
    await Promise.all(ourClients.map((c) => c.close()));
  }
  printTable(
    "Lost writes: 2 clients × 500 create_entities with distinct names, at the same time",
    ["server", "mode", "acknowledged", "refused", "present afterwards", "lost"],
    lost.map((l) => [l.server, l.mode === "lanes" ? "each client sequential" : "each client all at once", String(l.acknowledged), String(l.refused), String(l.survived), `${(((l.acknowledged - l.survived) / l.acknowledged) * 100).toFixed(0)}%`]),
  );
  ctx.results.graph = { sizes: results, lostWrites: lost };
}
