// How well each measure of the duplicate warning tells rewordings of a fact from
// different facts of one topic, on the labelled pairs of
// test/facts/similar-pairs.ts (docs/hygiene.md, "Choosing the measure"):
// pg_trgm similarity of "name description" as written (before sql/000042) and
// without English function words (am_duplicate_text, since 000042), by
// threshold. Needs a Postgres server (a scratch database is created and dropped):
//   node --no-warnings --import tsx bench/similar-pairs.ts [--database-url postgres://…]
import { parseArgs } from "node:util";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { SIMILAR_THRESHOLD } from "../src/facts/rules.js";
import { DIFFERENT_FACTS, SAME_FACT, type Fact } from "../test/facts/similar-pairs.js";
import { createDatabase } from "./lib/service.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({ options: { "database-url": { type: "string" } } });
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_similar_pairs_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 60_000, lockTimeoutMs: 3000 });
try {
  await migrate(db);
  const head = ([name, description]: Fact) => `${name} ${description}`;
  const score = async ([a, b]: [Fact, Fact]) =>
    (
      await db.query<{ written: number; words: number }>(
        "select similarity($1, $2) as written, similarity(am_duplicate_text($1), am_duplicate_text($2)) as words",
        [head(a), head(b)],
      )
    ).rows[0]!;
  const same = await Promise.all(SAME_FACT.map(score));
  const different = await Promise.all(DIFFERENT_FACTS.map(score));
  const thresholds = [0.35, 0.4, 0.42, 0.43, 0.45, 0.48, 0.5, 0.52, 0.55];
  const errors = (measure: "written" | "words", t: number) => {
    const missed = same.filter((s) => s[measure] < t).length;
    const wrong = different.filter((s) => s[measure] >= t).length;
    return `${missed} + ${wrong} = ${missed + wrong}`;
  };
  printTable(
    `${SAME_FACT.length} rewordings, ${DIFFERENT_FACTS.length} different facts: errors = rewordings missed + different facts listed (the service: ${SIMILAR_THRESHOLD} without function words)`,
    ["threshold", "as written", "without function words"],
    thresholds.map((t) => [t.toFixed(2), errors("written", t), errors("words", t)]),
  );
  const closest = (xs: typeof same, measure: "written" | "words", lowest: boolean) =>
    [...xs.map((x) => x[measure])].sort((a, b) => (lowest ? a - b : b - a)).slice(0, 3).map((x) => x.toFixed(3)).join(", ");
  console.log(`\nlowest rewordings: as written ${closest(same, "written", true)}; without function words ${closest(same, "words", true)}`);
  console.log(`highest different facts: as written ${closest(different, "written", false)}; without function words ${closest(different, "words", false)}`);
} finally {
  await db.close();
  await database.drop();
}
