// node --import tsx bench/ledger-profile.ts [--pairs 400] [--rounds 4] [--clients 16]
//
// Where a ledger claim+record pair's time goes, at the store level on Postgres
// (no HTTP, no MCP): the write path before issue 16 (BEGIN; lock the chain head
// and read the key; JS hash; append; COMMIT) against the one-statement write
// (read without the lock; lock + check + SQL hash + append in one autocommitted
// statement), alternated A B A B in one run on a fresh database, with the time of
// each step. bench/README.md ("Ledger") has the figures.
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

const { values } = parseArgs({ options: { pairs: { type: "string", default: "400" }, rounds: { type: "string", default: "4" }, clients: { type: "string", default: "16" } } });
const PAIRS = Number(values.pairs);
const ROUNDS = Number(values.rounds);
const CLIENTS = Number(values.clients);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

type Steps = Record<string, number[]>;

/** Times each statement sent through `q` under the label `label(sql)`. */
function timed(q: Queryable, steps: Steps, label: (text: string) => string): Queryable {
  return {
    exec: (text) => q.exec(text),
    async query(text, params) {
      const t = performance.now();
      try {
        return await q.query(text, params);
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

async function run(db: Database, actors: Actor[], variant: "before" | "after", clients: number, pairs: number, tag: string) {
  const steps: Steps = {};
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
  return { pairsPerSecond: pairs / seconds, pair: summarize(latencies), steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, summarize(v)])) };
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
  const all: Record<string, Array<Awaited<ReturnType<typeof run>>>> = {};
  for (const clients of [1, CLIENTS]) {
    for (let r = 0; r < ROUNDS; r++) {
      for (const variant of ["before", "after"] as const) {
        const res = await run(db, actors, variant, clients, clients === 1 ? Math.min(PAIRS, 100) : PAIRS, `${variant}-${clients}-${r}`);
        (all[`${variant}, ${clients} client(s)`] ??= []).push(res);
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, runs] of Object.entries(all)) {
    console.log(`\n${name}: ${runs.length} rounds, medians of the rounds`);
    console.log(`  pairs/s ${round(median(runs.map((r) => r.pairsPerSecond)), 1)}   pair p50 ${round(median(runs.map((r) => r.pair.p50)))} ms   p99 ${round(median(runs.map((r) => r.pair.p99)))} ms`);
    for (const step of Object.keys(runs[0]!.steps)) {
      const s = runs.map((r) => r.steps[step]!);
      console.log(`  ${step.padEnd(62)} n ${String(median(s.map((x) => x.n))).padStart(5)}  mean ${String(round(median(s.map((x) => x.mean)))).padStart(7)} ms   p50 ${String(round(median(s.map((x) => x.p50)))).padStart(7)}   p99 ${String(round(median(s.map((x) => x.p99)))).padStart(7)}`);
    }
  }
} finally {
  await db.close();
  await database.drop();
}
