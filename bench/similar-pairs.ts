// How well each measure of the duplicate warning tells rewordings of a fact from
// different facts of one topic, on the labelled pairs of
// test/facts/similar-pairs.ts (docs/hygiene.md, "Choosing the measure"):
// pg_trgm similarity of "name description" as written (before sql/000042),
// without English function words (am_duplicate_text of 000042) and as read now
// (000044: Japanese and Chinese cut by script as well), by threshold, for the
// English pairs and for the Japanese, Korean and Chinese ones. Needs a
// Postgres server (a scratch database is created and dropped):
//   node --no-warnings --import tsx bench/similar-pairs.ts [--database-url postgres://…]
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { migrate, SQL_DIR } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { SIMILAR_THRESHOLD } from "../src/facts/rules.js";
import { DIFFERENT_FACTS, DIFFERENT_FACTS_CJK, DIFFERENT_FACTS_ZH, SAME_FACT, SAME_FACT_CJK, SAME_FACT_ZH, type Fact } from "../test/facts/similar-pairs.js";
import { createDatabase } from "./lib/service.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({ options: { "database-url": { type: "string" } } });
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_similar_pairs_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 60_000, lockTimeoutMs: 3000 });

const MEASURES = ["written", "words", "now"] as const;
type Measure = (typeof MEASURES)[number];
type Scores = Record<Measure, number>;

try {
  await migrate(db);
  // 000042's reading, from its own migration, under another name.
  const sql42 = await readFile(join(SQL_DIR, "000042_duplicate_function_words.sql"), "utf8");
  const fn42 = /create function am_duplicate_text\(p_head text\)[\s\S]*?end \$\$;/.exec(sql42)![0];
  await db.exec(fn42.replace("create function am_duplicate_text(", "create function am_duplicate_text_000042("));

  const head = ([name, description]: Fact) => `${name} ${description}`;
  const score = async ([a, b]: [Fact, Fact]) =>
    (
      await db.query<Scores>(
        `select similarity($1, $2) as written,
                similarity(am_duplicate_text_000042($1), am_duplicate_text_000042($2)) as words,
                similarity(am_duplicate_text($1), am_duplicate_text($2)) as now`,
        [head(a), head(b)],
      )
    ).rows[0]!;
  const thresholds = [0.35, 0.4, 0.42, 0.43, 0.45, 0.48, 0.5, 0.52, 0.55];
  const report = async (label: string, samePairs: Array<[Fact, Fact]>, differentPairs: Array<[Fact, Fact]>) => {
    const same = await Promise.all(samePairs.map(score));
    const different = await Promise.all(differentPairs.map(score));
    const errors = (measure: Measure, t: number) => {
      const missed = same.filter((s) => s[measure] < t).length;
      const wrong = different.filter((s) => s[measure] >= t).length;
      return `${missed} + ${wrong} = ${missed + wrong}`;
    };
    printTable(
      `${label}: ${samePairs.length} rewordings, ${differentPairs.length} different facts; errors = rewordings missed + different facts listed (the service: ${SIMILAR_THRESHOLD}, as read now)`,
      ["threshold", "as written", "without function words (000042)", "now (000044)"],
      thresholds.map((t) => [t.toFixed(2), ...MEASURES.map((m) => errors(m, t))]),
    );
    const closest = (xs: Scores[], measure: Measure, lowest: boolean) =>
      [...xs.map((x) => x[measure])].sort((a, b) => (lowest ? a - b : b - a)).slice(0, 3).map((x) => x.toFixed(3)).join(", ");
    console.log(`\nlowest rewordings: ${MEASURES.map((m) => `${m} ${closest(same, m, true)}`).join("; ")}`);
    console.log(`highest different facts: ${MEASURES.map((m) => `${m} ${closest(different, m, false)}`).join("; ")}\n`);
  };
  await report("English", SAME_FACT, DIFFERENT_FACTS);
  await report("Japanese and Korean", SAME_FACT_CJK, DIFFERENT_FACTS_CJK);
  await report("Japanese only", SAME_FACT_CJK.slice(0, 12), DIFFERENT_FACTS_CJK.slice(0, 12));
  await report("Chinese", SAME_FACT_ZH, DIFFERENT_FACTS_ZH);
} finally {
  await db.close();
  await database.drop();
}
