// node --import tsx bench/ledger-profile.ts [--pairs 400] [--rounds 4] [--clients 16] [--variants before,after] [--json FILE]
//
// Where a ledger claim+record pair's time goes, at the store level on Postgres
// (no HTTP, no MCP): the write path before issue 16 (BEGIN; lock the chain head
// and read the key; JS hash; append; COMMIT) against this checkout's write path
// (read without the lock; lock + check + SQL hash + append in one autocommitted,
// grouped statement), alternated A B, B A in one run on a fresh database, with the
// time of each step and the CPU time per pair of this process and of the
// database's backends (from /proc: Postgres on this machine). bench/README.md
// ("The ledger's write path") has the figures. `--variants after --json FILE` is
// how bench/ledger-ab.ts compares two checkouts' write paths.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createAgent } from "../src/auth/store.js";
import type { Database, Queryable } from "../src/db/database.js";
import { openPostgres } from "../src/db/postgres.js";
import { migrate } from "../src/db/migrate.js";
import { appendEvent, type KeyStateRow, toKeyState, type Actor } from "../src/ledger/chain.js";
import * as sql from "../src/ledger/sql.js";
import { claimLedger, recordLedger } from "../src/ledger/store.js";
import { createDatabase } from "./lib/service.js";
import { round, summarize } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "400" },
    rounds: { type: "string", default: "4" },
    clients: { type: "string", default: "16" },
    variants: { type: "string", default: "before,after" },
    json: { type: "string" },
  },
});
const VARIANTS = values.variants.split(",") as Array<"before" | "after">;
if (VARIANTS.some((v) => v !== "before" && v !== "after")) throw new Error("--variants: before, after or both");
const PAIRS = Number(values.pairs);
const ROUNDS = Number(values.rounds);
const CLIENTS = Number(values.clients);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

type Steps = Record<string, number[]>;

/** Times each statement sent through `q` under the label `label(sql)`. */
function timed(q: Queryable, steps: Steps, label: (text: string) => string): Queryable {
  return {
    exec: (text) => q.exec(text),
    async query(text, params, options) {
      const t = performance.now();
      try {
        return await q.query(text, params, options);
      } finally {
        (steps[label(text)] ??= []).push(performance.now() - t);
      }
    },
  } as Queryable;
}

/** The write path of main before this change, statement for statement. */
async function beforeWrite(db: Database, steps: Steps, actor: Actor, key: { action: string; target: string }, kind: "claimed" | "executed") {
  const t = performance.now();
  let statements = 0;
  let locked = 0;
  await db.transaction(async (raw) => {
    const tx = timed(raw, steps, (s) => (s === sql.LOCK_HEAD_AND_READ_KEY_FOR_AGENT ? "lock head + read key (incl. lock wait)" : "append (JS hash)"));
    const s0 = performance.now();
    const row = (await tx.query<KeyStateRow & { head_seq: number; head_hash: string }>(sql.LOCK_HEAD_AND_READ_KEY_FOR_AGENT, [key.action, key.target, actor.agentId, "shared"])).rows[0]!;
    locked = performance.now();
    const state = { ...toKeyState(key, row), headSeq: Number(row.head_seq), headHash: row.head_hash };
    if (kind === "claimed") await appendEvent(tx, state, key, actor, { kind, claimExpiresAt: new Date(state.now.getTime() + 60_000) }, { set: state.now });
    else await appendEvent(tx, state, key, actor, { kind, evidence: `https://example.com/${key.target}` }, "drop");
    statements += performance.now() - s0;
  });
  const end = performance.now();
  (steps["head held: from lock granted to COMMIT done"] ??= []).push(end - locked);
  (steps["BEGIN + SET LOCAL + COMMIT round trips"] ??= []).push(end - t - statements);
}

/** The database handle the after variant writes through: one per run, so that its appends are grouped as in the service. */
function timedDatabase(db: Database, steps: Steps): Database {
  const q = timed(db, steps, (s) =>
    s === sql.READ_KEY_FOR_AGENT ? "read key, no lock" : s === sql.APPEND_MANY_IF_UNCHANGED ? "grouped append: wait + lock + hash + append + commit" : s,
  );
  return { ...db, query: q.query, transaction: db.transaction.bind(db) } as Database;
}

async function afterWrite(asDb: Database, _steps: Steps, actor: Actor, key: { action: string; target: string }, kind: "claimed" | "executed") {
  if (kind === "claimed") await claimLedger(asDb, actor, { ...key, ttlSeconds: 60 });
  else await recordLedger(asDb, actor, { ...key, evidence: `https://example.com/${key.target}` });
}

/** User + system CPU time so far of a process of this machine, in ms (clock ticks of 10 ms); 0 once it is gone. */
function cpuMs(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms so far of each backend connected to the bench database (the pool's connections). */
async function backendCpu(db: Database): Promise<Map<number, number>> {
  const pids = (await db.query<{ pid: number }>("select pid from pg_stat_activity where datname = current_database()")).rows;
  return new Map(pids.map(({ pid }) => [pid, cpuMs(pid)]));
}

async function run(db: Database, actors: Actor[], variant: "before" | "after", clients: number, pairs: number, tag: string) {
  const steps: Steps = {};
  const pgBefore = await backendCpu(db);
  const nodeBefore = process.cpuUsage();
  const latencies: number[] = [];
  let next = 0;
  const write = variant === "before" ? beforeWrite : afterWrite;
  const target = variant === "before" ? db : timedDatabase(db, steps);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const actor = actors[c % actors.length]!;
      for (let i = next++; i < pairs; i = next++) {
        const key = { action: "publish_article", target: `${tag}-${i}` };
        const t = performance.now();
        await write(target, steps, actor, key, "claimed");
        await write(target, steps, actor, key, "executed");
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const node = process.cpuUsage(nodeBefore);
  let pgMs = 0;
  for (const [pid, ms] of await backendCpu(db)) pgMs += ms - (pgBefore.get(pid) ?? 0);
  return {
    pairsPerSecond: pairs / seconds,
    pair: summarize(latencies),
    nodeCpuMsPerPair: (node.user + node.system) / 1000 / pairs,
    pgCpuMsPerPair: pgMs / pairs,
    steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, summarize(v)])),
  };
}

const database = await createDatabase(baseUrl, `am_ledger_profile_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 20, connectTimeoutMs: 5000, statementTimeoutMs: 30_000, lockTimeoutMs: 10_000 });
try {
  await migrate(db);
  const actors: Actor[] = [];
  for (const name of ["w-a", "w-b", "w-c", "w-d"]) {
    const a = await createAgent(db, { name, kind: "agent", writeScopes: ["shared"] });
    actors.push({ agentId: a.id, name: a.name });
  }
  // Every pool connection opened and every statement planned once before anything is measured.
  for (const variant of VARIANTS) await run(db, actors, variant, CLIENTS, CLIENTS * 2, `warm-${variant}`);
  const all: Record<string, Array<Awaited<ReturnType<typeof run>>>> = {};
  for (const clients of [1, CLIENTS]) {
    for (let r = 0; r < ROUNDS; r++) {
      // A B, then B A: neither variant always runs first.
      for (const variant of r % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const res = await run(db, actors, variant, clients, clients === 1 ? Math.min(PAIRS, 100) : PAIRS, `${variant}-${clients}-${r}`);
        (all[`${variant}, ${clients} client(s)`] ??= []).push(res);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary: Record<string, Record<string, number>> = {};
  for (const [name, runs] of Object.entries(all)) {
    const m = (f: (r: (typeof runs)[number]) => number) => round(median(runs.map(f)), 3);
    const s = (summary[name] = { pairsPerSecond: m((r) => r.pairsPerSecond), p50: m((r) => r.pair.p50), p99: m((r) => r.pair.p99), nodeCpuMsPerPair: m((r) => r.nodeCpuMsPerPair), pgCpuMsPerPair: m((r) => r.pgCpuMsPerPair) });
    console.log(`\n${name}: ${runs.length} rounds, medians of the rounds`);
    console.log(`  pairs/s ${round(s.pairsPerSecond, 1)}   pair p50 ${round(s.p50)} ms   p99 ${round(s.p99)} ms   CPU per pair: this process ${round(s.nodeCpuMsPerPair)} ms, Postgres ${round(s.pgCpuMsPerPair)} ms`);
    for (const step of Object.keys(runs[0]!.steps)) {
      const st = runs.map((r) => r.steps[step]!);
      console.log(`  ${step.padEnd(62)} n ${String(median(st.map((x) => x.n))).padStart(5)}  mean ${String(round(median(st.map((x) => x.mean)))).padStart(7)} ms   p50 ${String(round(median(st.map((x) => x.p50)))).padStart(7)}   p99 ${String(round(median(st.map((x) => x.p99)))).padStart(7)}`);
    }
  }
  if (values.json) writeFileSync(values.json, JSON.stringify({ summary, runs: all }));
} finally {
  await db.close();
  await database.drop();
}
