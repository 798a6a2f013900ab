// Where one call's time goes, by process: the CPU that the service, Postgres
// and the client each spend per call, beside the wall time, for whoami (the
// floor) and for recall, end to end (real MCP client over HTTP, the real
// service):
//   node --no-warnings --import tsx bench/recall-budget.ts [--facts 100000] [--calls 3000] [--rounds 3]
// Loads the benchmark corpus straight into a fresh database (as
// bench/recall-sql.ts does), starts one service, and runs the calls one at a
// time, the kinds alternating round by round. CPU comes from /proc (clock
// ticks of 10 ms, so thousands of calls a round give microseconds per call):
// the service process, the Postgres backends serving this database (the
// service's pool), and this process (the client). Unlike a sampling profile
// it adds no overhead and says which process to make cheaper; the columns
// "over whoami" are what a call adds to the floor, which issue 17's target
// (recall p50 ≤ 2× whoami) requires to be no more than the floor itself.
// A second table splits Postgres's share of a recall by statement.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { createAgent, issueToken } from "../src/auth/store.js";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { call, connect } from "./lib/clients.js";
import { recallParams } from "../src/facts/read.js";
import { RECALL, RECALL_CALL } from "../src/facts/recall-sql.js";
import { parseKeywords } from "../src/facts/rules.js";
import { ABSENT_WORD, generateFact, RARE_WORD } from "./lib/corpus.js";
import { insertCorpus } from "./lib/load-facts.js";
import { createDatabase, startBenchService } from "./lib/service.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({ options: { facts: { type: "string", default: "100000" }, calls: { type: "string", default: "3000" }, rounds: { type: "string", default: "3" } } });
const total = Number(values.facts);
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_recall_budget_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
const admin = new pg.Client({ connectionString: database.url });

/** User + system CPU of a process so far, in µs (0 once it has exited). */
function cpuMicros(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let service: Awaited<ReturnType<typeof startBenchService>> | undefined;
try {
  await migrate(db);
  await createAgent(db, { name: "budget-reader", kind: "agent", writeScopes: ["shared", "team-a", "team-b"] });
  const token = (await issueToken(db, "budget-reader", null)).token;
  const author = (await db.query<{ id: number }>("select id from agents where name = 'budget-reader'")).rows[0]!.id;
  console.log(`Loading ${total.toLocaleString("en-US")} facts…`);
  await insertCorpus(db, total, author);
  await admin.connect();
  service = await startBenchService(database.url);
  const client = await connect(service.mcpUrl, token);
  const kinds: Array<[string, string, Record<string, unknown>]> = [
    ["whoami", "whoami", {}],
    [`memory_recall, no match (${ABSENT_WORD})`, "memory_recall", { keywords: [ABSENT_WORD] }],
    [`memory_recall, rare keyword (${RARE_WORD}, 10 hits)`, "memory_recall", { keywords: [RARE_WORD] }],
    ["memory_get", "memory_get", { name: generateFact(5, total).name }],
  ];
  for (const [, tool, args] of kinds) for (let i = 0; i < 300; i++) await call(client, tool, args);
  const backends = async () =>
    (await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")).rows.map((r) => r.pid);
  const postgresMicros = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  type Sample = { wallP50: number; service: number; postgres: number; client: number };
  const samples = new Map<string, Sample[]>();
  for (let r = 0; r < rounds; r++) {
    for (const [label, tool, args] of kinds) {
      const pids = await backends();
      const s0 = cpuMicros(service.pid);
      const p0 = postgresMicros(pids);
      const c0 = process.cpuUsage();
      const walls: number[] = [];
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        await call(client, tool, args);
        walls.push(performance.now() - t0);
      }
      const c = process.cpuUsage(c0);
      walls.sort((a, b) => a - b);
      const list = samples.get(label) ?? [];
      list.push({
        wallP50: walls[Math.floor(calls / 2)]! * 1000,
        service: (cpuMicros(service.pid) - s0) / calls,
        postgres: (postgresMicros(pids) - p0) / calls,
        client: (c.user + c.system) / calls,
      });
      samples.set(label, list);
    }
  }
  const summary = [...samples].map(([label, list]) => ({
    label,
    wallP50: median(list.map((s) => s.wallP50)),
    service: median(list.map((s) => s.service)),
    postgres: median(list.map((s) => s.postgres)),
    client: median(list.map((s) => s.client)),
  }));
  const floor = summary[0]!;
  const over = (x: number, base: number) => (x - base >= 0 ? "+" : "") + (x - base).toFixed(0);
  printTable(
    `Per call at ${total.toLocaleString("en-US")} facts, sequential, one client (µs; median of ${rounds} rounds of ${calls} calls)`,
    ["call", "wall p50", "÷ whoami", "service CPU", "Postgres CPU", "client CPU", "over whoami: service / Postgres / client"],
    summary.map((s) => [
      s.label,
      s.wallP50.toFixed(0),
      s.wallP50 / floor.wallP50,
      s.service.toFixed(0),
      s.postgres.toFixed(0),
      s.client.toFixed(0),
      s === floor ? "" : `${over(s.service, floor.service)} / ${over(s.postgres, floor.postgres)} / ${over(s.client, floor.client)}`,
    ]),
  );
  await client.close();

  // Postgres's share of a recall, statement by statement, on one connection
  // (CPU of that backend; the same rare keyword, the same parameters).
  const pid = (await admin.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid;
  const params = recallParams(parseKeywords([RARE_WORD]), { all: false, scopes: ["shared", "team-a", "team-b"] }, {}, 10);
  const statements: Array<[string, string, unknown[]]> = [
    ["select 1 (a round trip)", "select 1", []],
    ["the keyword's trigram scan alone (exact substrings)", `select id from facts f where (f.name || E'\\n' || f.description || E'\\n' || f.body) ilike any($1::text[])`, [params[0]]],
    ["the keyword's word scan alone", "select id from facts f where f.search_head @@ plainto_tsquery('english', $1) or f.search_body @@ plainto_tsquery('english', $1)", [RARE_WORD]],
    ["RECALL as a prepared statement (generic plan)", RECALL, params],
    ["RECALL_CALL (am_recall: kept plan, rows as JSON)", RECALL_CALL, params],
  ];
  await admin.query("set plan_cache_mode = force_generic_plan");
  const statementRows: Array<Array<string | number>> = [];
  for (const [label, text, values] of statements) {
    const name = `budget_${statementRows.length}`;
    for (let i = 0; i < 200; i++) await admin.query({ name, text, values });
    const cpu: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const c0 = cpuMicros(pid);
      for (let i = 0; i < calls; i++) await admin.query({ name, text, values });
      cpu.push((cpuMicros(pid) - c0) / calls);
    }
    statementRows.push([label, median(cpu).toFixed(0)]);
  }
  printTable(`Postgres CPU per statement (µs, median of ${rounds} rounds of ${calls})`, ["statement", "backend CPU"], statementRows);
} finally {
  await service?.stop();
  await admin.end().catch(() => {});
  await db.close();
  await database.drop();
}
