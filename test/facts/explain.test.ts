// Recall must not scan every fact for a keyword of three or more characters:
// with a few thousand facts and fresh statistics, the planner picks the
// trigram indexes (substrings; near matches) and the tsvector index (words) on
// its own (no planner settings are forced here); nor for one of one or two
// CJK characters, which has no trigram: the index of pieces (facts_cjk_grams).
//
// "Fresh statistics" means VACUUM ANALYZE, not ANALYZE alone: a GIN index keeps
// its own statistics (entry and page counts) in its metapage, and only VACUUM
// (or building the index on a full table) refreshes them. The migration builds
// the index on an empty table, so until the first (auto)vacuum the planner
// prices the index as if every keyword hit all of it. On Postgres autovacuum
// runs after the first ~1,000 inserts; PGlite has no autovacuum.
import { beforeAll, describe, expect, it } from "vitest";
import { recallParams } from "../../src/facts/recall/recall.js";
import { RECALL_CALL } from "../../src/facts/recall/recall-sql.js";
import { parseKeywords } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, fact, store } from "./helpers.js";
import { type AnalyzedPlanNode, explainFunction, type PlanNode, planNodes } from "../support/plans.js";

const FACTS = 4000;
const WORDS = (
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike oscar papa romeo sierra tango victor " +
  "server client build cache worker token scope memory review agent human ledger graph entity relation observation " +
  "schema index table column insert update delete select plan cost page tuple heap search store version history event"
).split(" ");

describe.each(BACKENDS)("recall query plan on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 }); // bulk loads
    const writer = await addCaller(tdb.db, "writer", { scopes: ["shared", "team"] });
    // Bulk rows of word-like text straight into the table (the history tables
    // play no part in recall).
    await tdb.db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select case when i % 2 = 0 then 'shared' else 'team' end, 'generated-' || i,
              (select string_agg(w[1 + ((i * 7 + k * 13) % array_length(w, 1))], ' ') from generate_series(1, 8) as k),
              'project',
              (select string_agg(w[1 + ((i * 31 + k * 17 + k * k) % array_length(w, 1))] || (i % 997), ' ') from generate_series(1, 60) as k),
              $1::bigint
         from generate_series(1, ${FACTS}) as i, (select $2::text[] as w) as words`,
      [writer.agentId, WORDS],
    );
    await store(tdb.db, writer, fact("deploy-needs-migrations", { description: "本番デプロイの前にマイグレーションを実行する" }));
    await tdb.db.query("vacuum analyze facts");
  });

  async function plan(keywords: string[], readable: { all: boolean; scopes: string[] }, scope: string | null = null): Promise<PlanNode[]> {
    const params = recallParams(parseKeywords(keywords), readable, { scope: scope ?? undefined }, 10);
    return planNodes(await explainFunction(tdb.db, "am_recall", params));
  }

  const cases: Array<[string, string[], { all: boolean; scopes: string[] }, string | null]> = [
    ["one ASCII keyword, all scopes", ["migrations"], { all: true, scopes: [] }, null],
    ["several keywords, some scopes", ["deploy", "rollback", "queue"], { all: false, scopes: ["shared"] }, null],
    ["a long keyword (many trigrams)", ["database-migration-checklist-before-release"], { all: true, scopes: [] }, null],
    ["a Japanese keyword with a scope filter", ["マイグレーション"], { all: false, scopes: ["shared", "team"] }, "shared"],
    ["a typo and a quoted phrase", ["migartion", '"schema index"'], { all: false, scopes: ["shared"] }, null],
  ];

  it.each(cases)("%s: bitmap scans of the trigram and word indexes, no sequential scan of facts", async (_what, keywords, readable, scope) => {
    const all = await plan(keywords, readable, scope);
    const summary = all.map((n) => `${n["Node Type"]}${n["Relation Name"] ? ` on ${n["Relation Name"]}` : ""}${n["Index Name"] ? ` using ${n["Index Name"]}` : ""}`);
    // Substrings (exact), near matches (the exact index of each fact's words, am_near_words), and words.
    // The trigram index (leading with the scope, am_recall) in the branch the
    // caller's scopes choose (planned with the parameters, the other is pruned;
    // with a scope filter the planner may also use it for the scope alone).
    expect(summary.filter((s) => s === "Bitmap Index Scan using facts_exact_trgm").length, summary.join("\n")).toBeGreaterThanOrEqual(1);
    expect(summary, summary.join("\n")).toContain("Bitmap Index Scan using facts_near_words");
    expect(summary, summary.join("\n")).toContain("Bitmap Index Scan using facts_search_words");
    expect(summary.filter((s) => s.startsWith("Seq Scan on facts")), summary.join("\n")).toEqual([]);
  });

  it("a question: each of its words looked up through the word indexes, no sequential scan of facts", async () => {
    const all = await plan(["Which cache worker should review the ledger graph?"], { all: false, scopes: ["shared"] });
    const summary = all.map((n) => `${n["Node Type"]}${n["Relation Name"] ? ` on ${n["Relation Name"]}` : ""}${n["Index Name"] ? ` using ${n["Index Name"]}` : ""}`);
    expect(summary, summary.join("\n")).toContain("Bitmap Index Scan using facts_search_words");
    expect(summary.filter((s) => s.startsWith("Seq Scan on facts")), summary.join("\n")).toEqual([]);
  });

  it("a keyword of two CJK characters: read through the index of pieces (facts_cjk_grams), the trigram index never searched, no sequential scan", async () => {
    const params = recallParams(parseKeywords(["本番"]), { all: false, scopes: ["shared", "team"] }, {}, 10);
    const all = planNodes(await explainFunction<AnalyzedPlanNode>(tdb.db, "am_recall", params, { analyze: true }));
    const summary = all.map((n) => `${n["Node Type"]}${n["Relation Name"] ? ` on ${n["Relation Name"]}` : ""}${n["Index Name"] ? ` using ${n["Index Name"]}` : ""}`);
    const ran = (index: string) => all.filter((n) => n["Index Name"] === index).reduce((sum, n) => sum + n["Actual Loops"], 0);
    expect(ran("facts_cjk_grams"), summary.join("\n")).toBeGreaterThanOrEqual(1);
    // The trigram index would propose every fact for a keyword without a trigram: it is not searched.
    expect(ran("facts_exact_trgm"), summary.join("\n")).toBe(0);
    expect(summary.filter((s) => s.startsWith("Seq Scan on facts")), summary.join("\n")).toEqual([]);
    // Every row of facts read is the fact that holds it.
    const factRows = all.filter((n) => n["Relation Name"] === "facts").reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"], 0);
    expect(factRows).toBeLessThanOrEqual(10);
    const found = await tdb.db.query<{ r: { name: string } }>(RECALL_CALL, params);
    expect(found.rows.map(({ r }) => r.name)).toEqual(["deploy-needs-migrations"]);
  });

  it("really finds the fact through that plan", async () => {
    const r = await tdb.db.query<{ r: { name: string; total: number } }>(RECALL_CALL, recallParams(parseKeywords(["マイグレーション"]), { all: true, scopes: [] }, {}, 10));
    expect(r.rows.map(({ r: row }) => [row.name, row.total])).toEqual([["deploy-needs-migrations", 1]]);
    // A typo in a word of the generated text is found through the near-match scan.
    const near = await tdb.db.query<{ r: { total: number } }>(RECALL_CALL, recallParams(parseKeywords(["foxtort"]), { all: true, scopes: [] }, {}, 10));
    expect(near.rows[0]?.r.total).toBeGreaterThan(0);
  });
});
