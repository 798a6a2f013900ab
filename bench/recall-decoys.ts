// Recall's exact (substring) lookup against crafted facts (security audit,
// stop 21): facts holding every trigram of a keyword apart, but never the
// keyword, which the trigram index proposes and the recheck then rejects. At
// the SQL level on one database: a victim reading scopes "vic" and "shared"
// recalls a word its own facts hold, while an attacker's decoys sit in a scope
// the victim cannot read ("att") or in one it can ("shared"). Prints the
// victim's p50/max for one keyword and for ten variants of it, asserts nothing.
//   node --no-warnings --import tsx bench/recall-decoys.ts [--backend postgres|pglite] [--decoys 3000] [--where att|shared] [--at start|end] [--upto M]
// --at: where the decoy's trigrams sit in its 16,000-character body (the
// audit's sat at the end). --upto M migrates to M only (37 = before 000038).
import { parseArgs } from "node:util";
import { loadMigrations, migrate } from "../src/db/migrate.js";
import { openPglite } from "../src/db/pglite.js";
import { openPostgres } from "../src/db/postgres.js";
import type { Database } from "../src/db/database.js";
import { recallParams } from "../src/facts/read.js";
import { RECALL_CALL } from "../src/facts/recall-sql.js";
import { parseKeywords } from "../src/facts/rules.js";
import { rng } from "./lib/corpus.js";
import { summarize } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "postgres" },
    decoys: { type: "string", default: "3000" },
    where: { type: "string", default: "att" },
    at: { type: "string", default: "start" },
    runs: { type: "string", default: "7" },
    upto: { type: "string" },
    keep: { type: "boolean", default: false },
    "database-url": { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
  },
});
const DECOYS = Number(values.decoys);
const RUNS = Number(values.runs);
const timeouts = { statementTimeoutMs: 600_000, lockTimeoutMs: 10_000 };
const KEYWORD = "kubernetes";
// Ten keywords an attacker (or a careless agent) may send at once: pieces of the word.
const VARIANTS = ["kubernetes", "kubern", "bernet", "ernete", "ubernet", "kuber", "netes", "rnetes", "uberne", "ernetes"];

let db: Database;
let dropDb = async () => {};
if (values.backend === "pglite") {
  db = await openPglite({ ...timeouts, dataDir: undefined });
} else {
  const admin = openPostgres({ ...timeouts, connectionString: values["database-url"]!, poolMax: 1, connectTimeoutMs: 5000 });
  const name = `am_decoy_bench_${process.pid}`;
  await admin.query(`create database ${name}`);
  const url = new URL(values["database-url"]!);
  url.pathname = `/${name}`;
  db = openPostgres({ ...timeouts, connectionString: url.toString(), poolMax: 1, connectTimeoutMs: 5000 });
  dropDb = async () => {
    if (values.keep) console.log(`kept database ${name}`);
    else await admin.query(`drop database ${name} with (force)`);
    await admin.close();
  };
}
try {
  const all = await loadMigrations();
  const migrations = values.upto ? all.slice(0, Number(values.upto)) : all;
  await migrate(db, migrations);
  const agent = (await db.query<{ id: string }>("insert into agents (name) values ('bench') returning id")).rows[0]!.id;
  const insert = async (rows: Array<{ scope: string; name: string; description: string; body: string }>) => {
    for (let s = 0; s < rows.length; s += 500) {
      const batch = rows.slice(s, s + 500);
      await db.query(
        `insert into facts (scope, name, description, type, body, author_id)
         select u.scope, u.name, u.description, 'reference', u.body, $5::bigint from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as u(scope, name, description, body)`,
        [batch.map((r) => r.scope), batch.map((r) => r.name), batch.map((r) => r.description), batch.map((r) => r.body), agent],
      );
    }
  };
  // The victim's own facts: 50 that say the keyword, 500 that do not.
  const r = rng(7);
  const filler = (n: number) => Array.from({ length: n }, () => "abcdfghjmpqsvwxyz"[Math.floor(r() * 17)]).join("");
  await insert([
    ...Array.from({ length: 50 }, (_, i) => ({ scope: "vic", name: `vic-${i}`, description: `Deploy ${KEYWORD} service ${i}`, body: `Use helm for ${KEYWORD} ${i}. ${filler(800)}` })),
    ...Array.from({ length: 500 }, (_, i) => ({ scope: "vic", name: `vic-other-${i}`, description: `Other note ${i}`, body: filler(800) })),
  ]);
  const pieces = Array.from({ length: KEYWORD.length - 2 }, (_, i) => `q${KEYWORD.slice(i, i + 3)}q`).join(" ");
  const decoyBody = () => (values.at === "end" ? `${filler(15_800)} ${pieces}` : `${pieces} ${filler(15_800)}`);
  const t0 = performance.now();
  await insert(Array.from({ length: DECOYS }, (_, i) => ({ scope: values.where!, name: `decoy-${i}`, description: `note ${i}`, body: decoyBody() })));
  await db.query("analyze facts");
  console.log(`${values.backend}, migrations up to ${migrations.length}: ${DECOYS.toLocaleString("en-US")} decoys in "${values.where}" (trigrams at the ${values.at} of 16,000 characters), loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const victim = { all: false, scopes: ["vic", "shared"] };
  // Before 000039 am_recall took 14 arguments (no CJK parts).
  const args = Number((await db.query<{ n: number }>("select pronargs as n from pg_proc where proname = 'am_recall'")).rows[0]!.n);
  const call = args === 14 ? RECALL_CALL.replace(", $15::text[]", "") : RECALL_CALL;
  const time = async (keywords: string[]) => {
    const params = recallParams(parseKeywords(keywords), victim, {}, 10).slice(0, args);
    const samples: number[] = [];
    let hits = 0;
    for (let i = 0; i < RUNS + 1; i++) {
      const t = performance.now();
      const rows = (await db.query<{ r: { total: number } }>(call, params)).rows;
      if (i > 0) samples.push(performance.now() - t);
      hits = rows[0]?.r.total ?? 0;
    }
    const s = summarize(samples);
    return `p50 ${s.p50.toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms, ${hits} hits`;
  };
  console.log(`victim recall ["${KEYWORD}"]: ${await time([KEYWORD])}`);
  console.log(`victim recall, ten variants: ${await time(VARIANTS)}`);
} finally {
  await db.close();
  await dropDb();
}
