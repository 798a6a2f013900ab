// Recall's SQL at scale, before and after issue 17, in one run:
//   node --no-warnings --import tsx bench/recall-sql.ts [--facts 100000] [--runs 200]
// Loads the benchmark corpus (bench/lib/corpus.ts) straight into a fresh,
// migrated database with one INSERT per 5,000 facts (minutes faster than
// through memory_store, which the facts section of `npm run bench` does), then
// times the statement of before issue 17 and today's, alternating, on the same
// keywords as the facts section; then what the word columns add to inserting a
// fact (CREATE_FACT with them, then after dropping them). Statement times only:
// no HTTP, no MCP; the facts section gives the end-to-end figures.
import { parseArgs } from "node:util";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { recallParams } from "../src/facts/read.js";
import { parseKeywords, RECALL_BODY_CHARS } from "../src/facts/rules.js";
import { RECALL } from "../src/facts/recall-sql.js";
import { CREATE_FACT } from "../src/facts/sql.js";
import { ABSENT_WORD, area, generateFact, RARE_WORD, TYPO_WORD } from "./lib/corpus.js";
import { createDatabase } from "./lib/service.js";
import { summarize } from "./lib/stats.js";
import { printTable } from "./lib/table.js";
import { OLD_RECALL, oldKeywordPatterns } from "./recall-quality/old-recall.js";

const { values } = parseArgs({ options: { facts: { type: "string", default: "100000" }, runs: { type: "string", default: "200" }, "database-url": { type: "string" } } });
const total = Number(values.facts);
const runs = Number(values.runs);
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_recall_sql_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
try {
  await migrate(db);
  const author = (await db.query<{ id: number }>("insert into agents (name) values ('bench-writer') returning id")).rows[0]!.id;
  console.log(`Loading ${total.toLocaleString("en-US")} facts…`);
  for (let s = 0; s < total; s += 5000) {
    const batch = Array.from({ length: Math.min(5000, total - s) }, (_, j) => generateFact(s + j, total));
    await db.query(
      `insert into facts (scope, name, description, type, body, author_id, updated_at)
       select u.scope, u.name, u.description, u.type, u.body, $6::bigint, now() - ((${total} - ${s} - u.ord) * interval '1 second')
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as u(scope, name, description, type, body, ord)`,
      [batch.map((f) => f.scope), batch.map((f) => f.name), batch.map((f) => f.description), batch.map((f) => f.type), batch.map((f) => f.body), author],
    );
  }
  await db.query("vacuum analyze facts");

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
  for (const [label, keywords] of sets) {
    const oldParams = [oldKeywordPatterns(keywords), readable.all, readable.scopes, null, null, null, 10, RECALL_BODY_CHARS];
    const newParams = recallParams(parseKeywords(keywords), readable, {}, 10);
    const time = async (sql: string, params: unknown[]) => {
      const t0 = performance.now();
      const r = await db.query<{ total: number }>(sql, params);
      return { ms: performance.now() - t0, total: r.rows[0]?.total ?? 0 };
    };
    for (let i = 0; i < 10; i++) await Promise.all([time(OLD_RECALL, oldParams), time(RECALL, newParams)]);
    const before: number[] = [];
    const after: number[] = [];
    let hits = [0, 0];
    for (let i = 0; i < runs; i++) {
      const a = await time(OLD_RECALL, oldParams);
      const b = await time(RECALL, newParams);
      before.push(a.ms);
      after.push(b.ms);
      hits = [a.total, b.total];
    }
    const sb = summarize(before);
    const sa = summarize(after);
    rows.push([label, `${hits[0]} → ${hits[1]}`, sb.p50, sa.p50, sb.p99, sa.p99, sa.p50 / sb.p50]);
  }
  printTable(`Recall statement at ${total.toLocaleString("en-US")} facts, before → now (ms, ${runs} runs each, alternating)`, ["keywords", "hits", "p50 before", "p50 now", "p99 before", "p99 now", "p50 ratio"], rows);

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
