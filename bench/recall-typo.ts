// Recall's typo lookup (near matches), before and after sql/000035, at the SQL
// level on one database: the cost of storing a fact (the vocabulary trigger and
// the words index), a typo recall at N facts, and the decoy attack (facts
// holding a typo keyword's trigrams apart, docs/recall.md "Near matches").
//   node --no-warnings --import tsx bench/recall-typo.ts [--backend postgres|pglite] [--facts 100000] [--upto 33]
// --upto M migrates to M only (33 = before the vocabulary). Prints, asserts nothing.
import { parseArgs } from "node:util";
import { loadMigrations, migrate } from "../src/db/migrate.js";
import { openPglite } from "../src/db/pglite.js";
import { openPostgres } from "../src/db/postgres.js";
import type { Database } from "../src/db/database.js";
import { generateFact, TYPO_WORD } from "./lib/corpus.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "postgres" },
    facts: { type: "string", default: "100000" },
    decoys: { type: "string", default: "3000" },
    upto: { type: "string" },
    keep: { type: "boolean", default: false },
    "database-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});
const N = Number(values.facts);
const DECOYS = Number(values.decoys);
const timeouts = { statementTimeoutMs: 120_000, lockTimeoutMs: 10_000 };

let db: Database;
let dropDb = async () => {};
if (values.backend === "pglite") {
  db = await openPglite({ ...timeouts, dataDir: undefined });
} else {
  const admin = openPostgres({ ...timeouts, connectionString: values["database-url"]!, poolMax: 1, connectTimeoutMs: 5000 });
  const name = `am_typo_bench_${process.pid}`;
  await admin.query(`create database ${name}`);
  const url = new URL(values["database-url"]!);
  url.pathname = `/${name}`;
  db = openPostgres({ ...timeouts, connectionString: url.toString(), poolMax: 1, connectTimeoutMs: 5000 });
  dropDb = async () => {
    await admin.query(`drop database ${name} with (force)`);
    await admin.close();
  };
}
const all = await loadMigrations();
const migrations = values.upto ? all.slice(0, Number(values.upto)) : all;
await migrate(db, migrations);
const after = migrations.some((m) => m.name.includes("typo"));
const { recallParams } = await import("../src/facts/read.js");
const { RECALL_CALL } = await import("../src/facts/recall-sql.js");
const { parseKeywords } = await import("../src/facts/rules.js");
// Before: am_recall's $11 was the word-similarity threshold (real).
const call = after ? RECALL_CALL : RECALL_CALL.replace("$11::int", "$11::real");
const params = (keywords: string[], scopes: { all: boolean; scopes: string[] }) => {
  const p = recallParams(parseKeywords(keywords), scopes, {}, 10);
  if (!after) p[10] = 0.4;
  return p;
};

const agent = (await db.query<{ id: string }>("insert into agents (name) values ('bench') returning id")).rows[0]!.id;
console.log(`${values.backend}, migrations up to ${migrations.length}${after ? " (vocabulary)" : " (trigram word similarity)"}, ${N.toLocaleString("en-US")} facts`);
let t = performance.now();
for (let i = 0; i < N; i += 1000) {
  const batch = Array.from({ length: Math.min(1000, N - i) }, (_, j) => generateFact(i + j, N));
  await db.query(
    `insert into facts (scope, name, description, type, body, author_id)
     select s, n || '-' || g, d, ty, b, $6::bigint from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as x(s, n, d, ty, b, g)`,
    [batch.map((f) => f.scope), batch.map((f, j) => `${f.name}-${i + j}`), batch.map((f) => f.description), batch.map((f) => f.type), batch.map((f) => f.body), agent],
  );
}
console.log(`load: ${((performance.now() - t) / 1000).toFixed(1)} s`);
await db.query("vacuum analyze");

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = async (f: () => Promise<unknown>) => {
  const s = performance.now();
  await f();
  return performance.now() - s;
};

// Storing a new fact: one insert of a fact with words of its own (a new word or two
// per fact, like a team's), as memory_store's CREATE_FACT inserts the row.
const stores: number[] = [];
for (let i = 0; i < 400; i++) {
  stores.push(
    await timed(() =>
      db.query(`insert into facts (scope, name, description, type, body, author_id) values ('team-a', $1, $2, 'project', $3, $4::bigint)`, [
        `bench-new-${i}`,
        `Note ${i}: the stagingdb${i} replica lags behind after failover${i}`,
        `Why: measured in incident ${i}. How to apply: check replication lag on stagingdb${i} before switching traffic; ${generateFact(i, N).body}`,
        agent,
      ]),
    ),
  );
}
console.log(`insert one new fact: p50 ${p50(stores.slice(100)).toFixed(3)} ms (300 inserts after 100 warm-up)`);

const ALL = { all: true, scopes: [] as string[] };
const recall = async (keywords: string[], runs: number, scopes = ALL) => {
  const xs: number[] = [];
  let hits = 0;
  for (let i = 0; i < runs; i++) xs.push(await timed(async () => (hits = (await db.query(call, params(keywords, scopes))).rows.length)));
  return { p50: p50(xs), hits };
};
const SOME = { all: false, scopes: ["shared", "team-a", "team-b"] };
for (const [k, scopes, who] of [[[TYPO_WORD], ALL, "all scopes"], [[TYPO_WORD], SOME, "three scopes"], [["flamingo"], ALL, "all scopes"], [["zyxwvutsrq"], ALL, "all scopes"]] as Array<[string[], typeof ALL, string]>) {
  await recall(k, 20, scopes);
  const r = await recall(k, 200, scopes);
  console.log(`recall ${JSON.stringify(k)}, reader of ${who}: p50 ${r.p50.toFixed(3)} ms, ${r.hits} hits (200 runs)`);
}

// The decoy attack (security review of 000032): facts each holding, for 8 typo
// keywords, half of the keyword's trigrams in two short words far apart ("hx
// zqzq al" for "alphx": "  a", " al", "hx "), padded to 1,000 characters: the
// trigram index proposed each fact for word similarity, the check rejected it,
// uncounted. (They hold none of the keyword's inner trigrams, so the exact
// substring lookup is not proposed them.) Plus one real similar word.
const TYPOS = ["alphx", "betax", "gammx", "deltx", "epsilox", "thetx", "kappx", "lambdx"];
const decoyBody = (i: number) => {
  const parts = TYPOS.map((k) => `${k.slice(-2)} zqzq vwvw ${k.slice(0, 2)} yjyj kxkx`);
  return `${parts.join(" ")} ${"mnmn wvwv ".repeat(100)} ${i}`.slice(0, 1000);
};
t = performance.now();
for (let i = 0; i < DECOYS; i += 500) {
  const n = Math.min(500, DECOYS - i);
  await db.query(
    `insert into facts (scope, name, description, type, body, author_id)
     select 'mal', 'decoy-' || ($1::int + g), 'decoy ' || ($1::int + g), 'project', b, $3::bigint from unnest($2::text[]) with ordinality as x(b, g)`,
    [i, Array.from({ length: n }, (_, j) => decoyBody(i + j)), agent],
  );
}
await db.query(`insert into facts (scope, name, description, type, body, author_id) values ('mal', 'real-alpha', 'the alpha release', 'project', 'alpha', $1::bigint)`, [agent]);
await db.query("vacuum analyze");
console.log(`stored ${DECOYS} decoy facts in ${((performance.now() - t) / 1000).toFixed(1)} s`);
for (const [who, scopes] of [["reader of every scope", ALL], ["reader of scope mal", { all: false, scopes: ["mal"] }]] as Array<[string, { all: boolean; scopes: string[] }]>) {
  const r = await recall(TYPOS, 5, scopes);
  console.log(`decoy attack, 8 typo keywords, ${who}: p50 ${r.p50.toFixed(1)} ms, ${r.hits} hits (5 runs)`);
}
await db.close();
if (values.keep) console.log("kept the database");
else await dropDb();
