// Recall's SQL at scale, in one run:
//   node --no-warnings --import tsx bench/recall-sql.ts [--facts 100000] [--runs 200] [--seconds 5]
// Loads the benchmark corpus (bench/lib/corpus.ts) straight into a fresh,
// migrated database with one INSERT per 5,000 facts (minutes faster than
// through memory_store, which the facts section of `npm run bench` does), then
// on the same keywords as the facts section:
// - the statement of before issue 17, the statement planned on every call (as
//   the service ran it until migration 000017) and the service's call through
//   am_recall (one generic plan per connection), alternating, one at a time;
// - calls/s of the last two with 16 callers on 8 connections (Postgres alone:
//   no HTTP, no MCP; the facts section gives the end-to-end figures);
// - the duplicate warning's lookup, and what the word columns add to
//   inserting a fact (CREATE_FACT with them, then after dropping them).
import { parseArgs } from "node:util";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { recallParams } from "../src/facts/read.js";
import { parseKeywords, RECALL_BODY_CHARS, SIMILAR_MAX, SIMILAR_THRESHOLD } from "../src/facts/rules.js";
import { RECALL, RECALL_CALL } from "../src/facts/recall-sql.js";
import { CREATE_FACT, SIMILAR_FACTS } from "../src/facts/sql.js";
import { ABSENT_WORD, area, generateFact, RARE_WORD, TYPO_WORD } from "./lib/corpus.js";
import { insertCorpus } from "./lib/load-facts.js";
import { createDatabase } from "./lib/service.js";
import { summarize } from "./lib/stats.js";
import { printTable } from "./lib/table.js";
import { OLD_RECALL, oldKeywordPatterns } from "./recall-quality/old-recall.js";

const { values } = parseArgs({ options: { facts: { type: "string", default: "100000" }, runs: { type: "string", default: "200" }, seconds: { type: "string", default: "5" }, "database-url": { type: "string" } } });
const total = Number(values.facts);
const runs = Number(values.runs);
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_recall_sql_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 8, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
try {
  await migrate(db);
  const author = (await db.query<{ id: number }>("insert into agents (name) values ('bench-writer') returning id")).rows[0]!.id;
  console.log(`Loading ${total.toLocaleString("en-US")} facts…`);
  await insertCorpus(db, total, author);

  const readable = { all: false, scopes: ["shared", "team-a", "team-b"] };
  const sets: Array<[string, string[]]> = [
    [`rare keyword (${RARE_WORD})`, [RARE_WORD]],
    [`no match (${ABSENT_WORD})`, [ABSENT_WORD]],
    [`typo (${TYPO_WORD})`, [TYPO_WORD]],
    ["Japanese keyword", [area("ja", 3)]],
    ["Korean keyword", [area("ko", 5)]],
    ["three keywords", [area("en", 1), area("en", 2), area("en", 3)]],
  ];
  const rows: Array<Array<string | number>> = [];
  const tput: Array<Array<string | number>> = [];
  const seconds = Number(values.seconds);
  for (const [label, keywords] of sets) {
    const oldParams = [oldKeywordPatterns(keywords), readable.all, readable.scopes, null, null, null, 10, RECALL_BODY_CHARS];
    const newParams = recallParams(parseKeywords(keywords), readable, {}, 10);
    const time = async (sql: string, params: unknown[]) => {
      const t0 = performance.now();
      const r = await db.query<{ total?: number; r?: { total: number } }>(sql, params);
      return { ms: performance.now() - t0, total: r.rows[0]?.total ?? r.rows[0]?.r?.total ?? 0 };
    };
    // Warm every connection of the pool with each (am_recall plans once per connection).
    for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: 8 }, () => Promise.all([time(OLD_RECALL, oldParams), time(RECALL, newParams), time(RECALL_CALL, newParams)])));
    const samples: number[][] = [[], [], []];
    let hits = [0, 0, 0];
    for (let i = 0; i < runs; i++) {
      const r = [await time(OLD_RECALL, oldParams), await time(RECALL, newParams), await time(RECALL_CALL, newParams)];
      r.forEach((x, j) => samples[j]!.push(x.ms));
      hits = r.map((x) => x.total);
    }
    const [so, sp, sc] = samples.map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>, ReturnType<typeof summarize>];
    rows.push([label, hits.join(" / "), so.p50, sp.p50, sc.p50, so.p99, sp.p99, sc.p99, sc.p50 / sp.p50]);
    // Throughput: 16 callers back to back for `seconds`, planned vs am_recall, twice each, alternating.
    const rate = async (sql: string) => {
      let n = 0;
      const end = performance.now() + seconds * 1000;
      await Promise.all(Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          await db.query(sql, newParams);
          n++;
        }
      }));
      return n / seconds;
    };
    const planned = [await rate(RECALL), 0];
    const cached = [await rate(RECALL_CALL), 0];
    planned[1] = await rate(RECALL);
    cached[1] = await rate(RECALL_CALL);
    const mean = (a: number[]) => (a[0]! + a[1]!) / 2;
    tput.push([label, mean(planned), mean(cached), mean(cached) / mean(planned)]);
  }
  printTable(
    `Recall statement at ${total.toLocaleString("en-US")} facts: before issue 17 / planned on every call / am_recall (ms, ${runs} runs each, alternating)`,
    ["keywords", "hits", "p50 before 17", "p50 planned", "p50 am_recall", "p99 before 17", "p99 planned", "p99 am_recall", "p50 am_recall ÷ planned"],
    rows,
  );
  printTable(`Recall calls/s, 16 callers on 8 connections, ${seconds} s × 2 each, alternating`, ["keywords", "planned every call", "am_recall", "ratio"], tput);

  // The duplicate warning's lookup for a new fact (nothing alike) and for a look-alike of the corpus.
  const dup: Array<Array<string | number>> = [];
  for (const [label, text] of [
    ["new fact, nothing alike", "bench-new-1 A new fact stored by the benchmark"],
    ["look-alike of ~1,000 facts", `bench-like-1 ${generateFact(3, total).description}`],
  ] as const) {
    const params = [text, SIMILAR_THRESHOLD, readable.all, readable.scopes, "", "", SIMILAR_MAX, text.replace(/^\S+ /, "")];
    const n = label.startsWith("new") ? runs : Math.min(runs, 20);
    const fn = "am_similar_facts(text, real, boolean, text[], text, text, integer, text)";
    // Before 000017 (a custom plan on every call) and now (the generic plan kept), in blocks of 10, alternating.
    const t: number[][] = [[], []];
    for (let done = 0; done < n; done += 10) {
      for (const [j, mode] of [[0, "reset plan_cache_mode"], [1, "set plan_cache_mode = force_generic_plan"]] as const) {
        await db.query(`alter function ${fn} ${mode}`);
        for (let i = 0; i < 6; i++) await Promise.all(Array.from({ length: 8 }, () => db.query(SIMILAR_FACTS, params)));
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now();
          await db.query(SIMILAR_FACTS, params);
          t[j]!.push(performance.now() - t0);
        }
      }
    }
    const [before, after] = t.map(summarize) as [ReturnType<typeof summarize>, ReturnType<typeof summarize>];
    dup.push([label, t[0]!.length, before.p50, after.p50, before.p99, after.p99]);
  }
  printTable(`Duplicate lookup (SIMILAR_FACTS) at ${total.toLocaleString("en-US")} facts, planned every call → generic plan kept (ms)`, ["text", "runs each", "p50 before", "p50 now", "p99 before", "p99 now"], dup);

  // Ordinary new facts (nothing alike in the corpus) by the word-similarity
  // threshold of the index scan (without function words, sql/000042); the
  // final filter stays similarity() >= SIMILAR_THRESHOLD.
  // What a higher index threshold would save, and what the service's costs (docs/hygiene.md).
  const ordinary = [
    "staging-vpn-required Staging deploys need the VPN; connect through the bastion host first",
    "invoice-rounding-rule Round invoice totals half-even per line, never on the sum",
    "flaky-login-test The login end-to-end test is flaky on CI when the cache is cold",
    "ja-note 決済サービスの設定を変更する前に必ずバックアップを取る",
  ];
  const byThreshold: Array<Array<string | number>> = [];
  for (const text of ordinary) {
    const row: Array<string | number> = [text.split(" ")[0]!];
    for (const threshold of [SIMILAR_THRESHOLD, 0.5, 0.6]) {
      const ms = await db.transaction(async (tx) => {
        await tx.query("set local enable_seqscan = off");
        await tx.query("select set_config('pg_trgm.word_similarity_threshold', $1, true)", [String(threshold)]);
        const t: number[] = [];
        for (let i = 0; i < 15; i++) {
          const t0 = performance.now();
          await tx.query(
            `select count(*) from (select f.id from facts f where am_duplicate_text($1) <% f.duplicate_text
                and similarity(f.duplicate_text, am_duplicate_text($1)) >= ${SIMILAR_THRESHOLD} limit 100) x`,
            [text],
            { prepareAs: "bench_dup_threshold" },
          );
          t.push(performance.now() - t0);
        }
        return summarize(t).p50;
      });
      row.push(ms);
    }
    byThreshold.push(row);
  }
  printTable(`Duplicate lookup of ordinary new facts at ${total.toLocaleString("en-US")} facts, by the index scan's threshold (ms p50, 15 runs)`, ["new fact", `${SIMILAR_THRESHOLD} (service)`, "0.5", "0.6"], byThreshold);

  const plan = await db.query<{ "QUERY PLAN": string }>(`explain ${RECALL}`, recallParams(parseKeywords([RARE_WORD]), readable, {}, 10));
  console.log(`\nPlan for the rare keyword:\n${plan.rows.map((r) => `  ${r["QUERY PLAN"]}`).join("\n")}`);

  // Inserting a fact: with the generated word columns and their index, then without.
  let k = 0;
  const insert = async () => {
    const t0 = performance.now();
    await db.query(CREATE_FACT, ["team-a", `bench-insert-${k++}`, "A new fact stored by the benchmark about the billing service", "project", generateFact(k, total).body, author, null]);
    return performance.now() - t0;
  };
  const n = Math.max(100, Math.min(runs * 2, 1000));
  for (let i = 0; i < 20; i++) await insert();
  const withColumns: number[] = [];
  for (let i = 0; i < n; i++) withColumns.push(await insert());
  await db.query("drop index facts_search_words; alter table facts drop column search_head, drop column search_body");
  for (let i = 0; i < 20; i++) await insert();
  const without: number[] = [];
  for (let i = 0; i < n; i++) without.push(await insert());
  const w = summarize(withColumns);
  const wo = summarize(without);
  printTable(`CREATE_FACT (one statement: fact, version, event), ${n} inserts each (ms)`, ["", "p50", "p99"], [
    ["without the word columns", wo.p50, wo.p99],
    ["with them (now)", w.p50, w.p99],
    ["added", w.p50 - wo.p50, w.p99 - wo.p99],
  ]);
} finally {
  await db.close();
  await database.drop();
}
