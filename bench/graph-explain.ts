// EXPLAIN (ANALYZE, BUFFERS, SUMMARY) of each graph read at a given size, on a
// fresh database loaded through the store (as the benchmark: the sprint corpus,
// or CORPUS=mixed),
// before and after ANALYZE: planning and execution time of every statement.
//   node --no-warnings --import tsx bench/graph-explain.ts 1000 50000
//   AB=30 BEFORE=main node --no-warnings --import tsx bench/graph-explain.ts 1000   (before/after)
//   PLANS=OPEN …   (also print the plans of the reads whose label starts so)
//   KEEP=1 …       (keep the database am_graph_explain_<n> for psql)
//   PREPARED=30 …  (the store's reads as the service runs them, named prepared
//                   statements, against the same reads unnamed, alternated)
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createAgent } from "../src/auth/store.js";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { answerBudget } from "../src/graph/bounds.js";
import * as relationsSql from "../src/graph/relations-sql.js";
import * as sql from "../src/graph/read-sql.js";
import { likePattern } from "../src/text.js";
import { openNodes, readGraph } from "../src/graph/read.js";
import { searchNodes } from "../src/graph/search.js";
import { createEntities, createRelations } from "../src/graph/store.js";
import type { Database } from "../src/db/database.js";
import { CORPORA } from "./lib/graph-corpus.js";
import { createDatabase } from "./lib/service.js";

const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const budget = answerBudget(100_000);
// CORPUS=mixed: another workload of the benchmark's (bench/lib/graph-corpus.ts).
const corpus = CORPORA[process.env.CORPUS ?? "sprint"]!;
// BEFORE=<git revision> (with AB=rounds): that revision's read statements to
// compare with, its read-sql.ts importing this tree's bounds and time helpers.
async function statementsAt(revision: string): Promise<Record<string, string>> {
  const text = execFileSync("git", ["show", `${revision}:src/graph/read-sql.ts`], { encoding: "utf8" })
    .replace('"./bounds.js"', JSON.stringify(fileURLToPath(new URL("../src/graph/bounds.ts", import.meta.url))))
    .replace('"../db/iso-time.js"', JSON.stringify(fileURLToPath(new URL("../src/db/iso-time.ts", import.meta.url))));
  const dir = mkdtempSync(join(tmpdir(), "graph-explain-"));
  try {
    writeFileSync(join(dir, "read-sql.ts"), text);
    return (await import(join(dir, "read-sql.ts"))) as Record<string, string>;
  } finally {
    rmSync(dir, { recursive: true });
  }
}
const before = process.env.BEFORE ? await statementsAt(process.env.BEFORE) : undefined;


async function explain(client: pg.Client, label: string, text: string, values: unknown[]) {
  if (process.env.PLANS && label.startsWith(process.env.PLANS)) {
    const r = await client.query(`explain (analyze, buffers, summary) ${text}`, values);
    console.log(r.rows.map((x: Record<string, string>) => x["QUERY PLAN"]).join("\n"));
  }
  const plans: number[] = [];
  const execs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const r = await client.query(`explain (analyze, buffers, summary, format json) ${text}`, values);
    const p = (r.rows[0] as { "QUERY PLAN": Array<{ "Planning Time": number; "Execution Time": number }> })["QUERY PLAN"][0]!;
    plans.push(p["Planning Time"]);
    execs.push(p["Execution Time"]);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(2);
  console.log(`  ${label.padEnd(28)} planning ${med(plans).padStart(7)} ms  execution ${med(execs).padStart(7)} ms`);
}

/**
 * Before/after: each read as committed at BEFORE (B) and as in this tree (A), alternated A B A B on one connection; medians of the
 * server's planning + execution time (EXPLAIN ANALYZE) and of the round trip.
 */
async function beforeAfter(client: pg.Client, n: number, names: string[], before: Record<string, string>) {
  const reads: Array<[string, string, unknown[]]> = [
    ...corpus.searches(n).map(({ label, query }): [string, string, unknown[]] => [label, "SEARCH_NODES", ["g", likePattern(query), 100, 0, budget.entityChars, budget.relationChars, 10_000]]),
    ["open_nodes (5 names)", "OPEN_NODES", ["g", names, budget.entityChars, budget.relationChars]],
    ["read_graph page", "READ_GRAPH_PAGE", ["g", 1000, 0, budget.entityChars]],
  ];
  const rounds = Number(process.env.AB);
  console.log(`  before/after, ${rounds} alternated rounds: median server ms (planning + execution), median round trip ms`);
  for (const [label, key, values] of reads) {
    const server: Record<"a" | "b", number[]> = { a: [], b: [] };
    const trip: Record<"a" | "b", number[]> = { a: [], b: [] };
    for (let i = 0; i < rounds; i++) {
      for (const [side, text] of [["a", (sql as Record<string, string>)[key]!], ["b", before[key]!]] as const) {
        const r = await client.query(`explain (analyze, summary, format json) ${text}`, values);
        const p = (r.rows[0] as { "QUERY PLAN": Array<{ "Planning Time": number; "Execution Time": number }> })["QUERY PLAN"][0]!;
        server[side].push(p["Planning Time"] + p["Execution Time"]);
        const t0 = performance.now();
        await client.query(text, values);
        trip[side].push(performance.now() - t0);
      }
    }
    const med = (x: number[]) => [...x].sort((p, q) => p - q)[x.length >> 1]!.toFixed(2).padStart(6);
    console.log(`  ${label.padEnd(28)} server: ${process.env.BEFORE} ${med(server.b)} → now ${med(server.a)}   round trip: ${process.env.BEFORE} ${med(trip.b)} → now ${med(trip.a)}`);
  }
}

/**
 * The store's reads through `db` as the service runs them (named prepared
 * statements: parsed once, planned once where the generic plan holds) and
 * through the same pool with the statement names dropped (parsed and planned
 * on every call), alternated; median ms per call, round trip included.
 */
async function preparedOrNot(db: Database, n: number, names: string[], rounds: number) {
  const unnamed: Database = { ...db, query: (text, params) => db.query(text, params) };
  const reads: Array<[string, (d: Database) => Promise<unknown>]> = [
    ...corpus.searches(n).map(({ label, query }): [string, (d: Database) => Promise<unknown>] => [label, (d) => searchNodes(d, "g", query, {}, 100_000, 10_000)]),
    ["open_nodes (5 names)", (d) => openNodes(d, "g", names, 100_000)],
    ["read_graph (first page)", (d) => readGraph(d, "g", {}, 100_000)],
  ];
  console.log(`  unnamed → prepared (as the service runs them), ${rounds} alternated rounds of 10 calls: median ms per call`);
  for (const [label, read] of reads) {
    const t = { unnamed: [] as number[], prepared: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      for (const [side, d] of [["unnamed", unnamed], ["prepared", db]] as const) {
        const t0 = performance.now();
        for (let k = 0; k < 10; k++) await read(d);
        t[side].push((performance.now() - t0) / 10);
      }
    }
    const med = (x: number[]) => [...x].sort((p, q) => p - q)[x.length >> 1]!.toFixed(2).padStart(6);
    console.log(`  ${label.padEnd(28)} ${med(t.unnamed)} → ${med(t.prepared)}`);
  }
}

for (const n of process.argv.slice(2).map(Number)) {
  const name = `am_graph_explain_${n}`;
  const { url, drop } = await createDatabase(base, name);
  const db = openPostgres({ connectionString: url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 10_000 });
  await migrate(db);
  // Experiment: another GIN pending-list size for the trigram indexes (kB).
  if (process.env.GIN_PENDING) {
    for (const index of ["graph_entities_scope_name_trgm", "graph_entities_scope_type_trgm", "graph_observations_scope_content_trgm"])
      await db.exec(`alter index ${index} set (gin_pending_list_limit = ${Number(process.env.GIN_PENDING)})`);
  }
  const agent = await createAgent(db, { name: "loader", kind: "agent", writeScopes: ["g"] });
  const w = { scope: "g", agentId: agent.id, maxChars: 4096 };
  const t0 = performance.now();
  for (let i = 0; i < n; i += corpus.batch)
    await createEntities(db, w, Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.entity(i + k, n)));
  const t1 = performance.now();
  for (let i = 0; i < n; i += corpus.batch)
    await createRelations(db, w, Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.relation(i + k, n)));
  console.log(`\n${n} entities: load ${(n / ((t1 - t0) / 1000)).toFixed(0)} entities/s, relations ${(n / ((performance.now() - t1) / 1000)).toFixed(0)}/s`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const names = corpus.openNames(0, n);
  for (const phase of (process.env.PHASES ?? "right after loading,after vacuum analyze").split(",")) {
    if (phase.startsWith("after")) await client.query("vacuum analyze graph_entities, graph_observations, graph_relations");
    console.log(` ${phase}:`);
    for (const { label, query } of corpus.searches(n))
      await explain(client, label.replace("search_nodes", "SEARCH_NODES"), sql.SEARCH_NODES, ["g", likePattern(query), 100, 0, budget.entityChars, budget.relationChars, 10_000]);
    await explain(client, "OPEN_NODES (5 names)", sql.OPEN_NODES, ["g", names, budget.entityChars, budget.relationChars]);
    await explain(client, "COUNT_ENTITIES", sql.COUNT_ENTITIES, ["g", 0, 10_000]);
    await explain(client, "READ_GRAPH_PAGE", sql.READ_GRAPH_PAGE, ["g", 1000, 0, budget.entityChars]);
    await explain(client, "RELATIONS_ALL", relationsSql.RELATIONS_ALL, ["g", 0, 0, null, budget.relationChars, 10_000]);
    await explain(client, "RELATIONS_TOUCHING", relationsSql.RELATIONS_TOUCHING, ["g", names, false, 0, 0, null, budget.relationChars, 10_000, 10_000]);
    if (before) await beforeAfter(client, n, names, before);
    if (process.env.PREPARED) await preparedOrNot(db, n, names, Number(process.env.PREPARED));
  }
  await client.end();
  await db.close();
  if (!process.env.KEEP) await drop();
}
