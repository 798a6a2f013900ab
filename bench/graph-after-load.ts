// Graph reads right after a load through create_entities (the "mixed" corpus,
// 50 a call), before any ANALYZE of ours: a service that served reads before the
// load and a fresh one, then both after an explicit ANALYZE. Shows what stale
// planner statistics cost and what src/graph/statistics.ts gives back.
//   npm run build && N=50000 node --no-warnings --import tsx bench/graph-after-load.ts
//   npm run build && PRE=50000 N=10000 node --no-warnings --import tsx bench/graph-after-load.ts
// PRE first loads that many entities into another scope and analyzes them: the
// N entities then arrive in a new scope of a graph already analysed (the case a
// scope's own growth covers, src/graph/statistics.ts).
// (For the figures before: the same on the commit before "Graph: ANALYZE in the background".)
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { call, connect } from "./lib/clients.js";
import { createDatabase, startBenchService } from "./lib/service.js";
import { CORPORA } from "./lib/graph-corpus.js";
import { summarize } from "./lib/stats.js";
const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const corpus = CORPORA.mixed!;
const db = await createDatabase(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", "am_graph_after_load");
const token = (JSON.parse(execFileSync(process.execPath, [CLI, "agent", "add", "loader", "--scopes", "*", "--json"], { env: { PATH: process.env.PATH, DATABASE_URL: db.url, LOG_LEVEL: "warn" } }).toString()) as { token: string }).token;
const old = await startBenchService(db.url, {});
const c1 = await connect(old.mcpUrl, token);
const load = async (scope: string, n: number) => { for (let i = 0; i < n; i += corpus.batch) await call(c1, "create_entities", { scope, entities: Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.entity(i + k, n)) }); for (let i = 0; i < n; i += corpus.batch) await call(c1, "create_relations", { scope, relations: Array.from({ length: Math.min(corpus.batch, n - i) }, (_, k) => corpus.relation(i + k, n)) }); };
const time = async (c: Awaited<ReturnType<typeof connect>>, scope: string, n: number, label: string) => {
  const t: number[] = []; for (let k = 0; k < 40; k++) { const t0 = performance.now(); await call(c, "open_nodes", { scope, names: corpus.openNames(k, n) }); t.push(performance.now() - t0); }
  const s: number[] = []; for (let k = 0; k < 20; k++) { const t0 = performance.now(); await call(c, "search_nodes", { scope, query: corpus.entity(k * 37 % n, n).name }); s.push(performance.now() - t0); }
  console.log(label, "open_nodes p50", summarize(t).p50.toFixed(2), "search p50", summarize(s).p50.toFixed(2));
};
await load("small", 1000);
if (process.env.PRE) {
  await load("earlier", Number(process.env.PRE));
  const pg = (await import("pg")).default;
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query("analyze graph_entities, graph_observations, graph_relations");
  await admin.end();
}
await time(c1, "small", 1000, "warm-up on 1,000:");
const N = Number(process.env.N ?? 50000);
await load("big", N);
const fresh = await startBenchService(db.url, {});
const c2 = await connect(fresh.mcpUrl, token);
await time(c1, "big", N, `${N} right after loading, service with cached plans:`);
await time(c2, "big", N, `${N} right after loading, fresh service:           `);
await time(c1, "big", N, `again, cached:`);
const pg = (await import("pg")).default; const admin = new pg.Client({ connectionString: db.url }); await admin.connect();
let t0 = performance.now(); await admin.query("analyze graph_entities, graph_observations, graph_relations"); console.log("analyze took", (performance.now() - t0).toFixed(0), "ms");
await admin.end();
await time(c1, "big", N, `after ANALYZE, cached service:`);
await time(c2, "big", N, `after ANALYZE, fresh service: `);
await c1.close(); await c2.close(); await old.stop(); await fresh.stop(); await db.drop();
