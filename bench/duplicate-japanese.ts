// What the duplicate lookup costs for Japanese facts, as read since sql/000044
// (kanji in pairs, hiragana left out) and as 000042 read them (a clause as one
// word): N Japanese facts of the benchmark's corpus (templated: each area's
// facts say the same thing of another tool), then the lookup memory_store runs
// (SIMILAR_FACTS) for 300 new facts, twice, timed the second time. "new": facts
// in other words; "near-copies": a rewording of the corpus's template, like
// ~N/200 stored facts each. Each reading gets its own fresh database.
// docs/hygiene.md, "Japanese, Chinese and Korean". Needs a Postgres server:
//   node --no-warnings --import tsx bench/duplicate-japanese.ts [--facts 30000] [--database-url postgres://…]
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { migrate, SQL_DIR } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { SIMILAR_MAX, SIMILAR_THRESHOLD } from "../src/facts/rules.js";
import { SIMILAR_FACTS } from "../src/facts/sql.js";
import { area, generateFact } from "./lib/corpus.js";
import { createDatabase } from "./lib/service.js";
import { summarize } from "./lib/stats.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({ options: { facts: { type: "string" }, "database-url": { type: "string" } } });
const total = Number(values.facts ?? 30_000);
const baseUrl = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const KANJI = "設定 変更 確認 手順 本番 環境 障害 対応 監視 通知 権限 管理 更新 削除 作成 登録 検証 移行 連携 設計 運用 保守 改善 計測 集計 分析 記録 承認 申請 報告".split(" ");
const KATAKANA = "デプロイ キャッシュ サーバー ログ クエリ トークン リリース テスト バックアップ インデックス".split(" ");
const mix = (n: number) => {
  let x = Math.imul(n, 2654435761) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d) >>> 0;
  return (x ^ (x >>> 12)) >>> 0;
};
const newFact = (n: number) => {
  const k = (i: number) => KANJI[mix(n * 7 + i) % KANJI.length]!;
  const t = (i: number) => KATAKANA[mix(n * 11 + i) % KATAKANA.length]!;
  return { name: `new-ja-${n}`, description: `${t(0)}の${k(1)}は${k(2)}の前に${t(3)}で${k(4)}する` };
};
const nearCopy = (n: number) => ({ name: `near-ja-${n}`, description: `${area("ja", n % 200)}の変更前には必ずmigrateを実行すること` });

async function measure(reading: "000044" | "000042"): Promise<string[][]> {
  const database = await createDatabase(baseUrl, `am_duplicate_ja_${process.pid}`);
  const db = openPostgres({ connectionString: database.url, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
  try {
    await migrate(db);
    if (reading === "000042") {
      const sql = await readFile(join(SQL_DIR, "000042_duplicate_function_words.sql"), "utf8");
      const fn = /create function am_duplicate_text\(p_head text\)[\s\S]*?end \$\$;/.exec(sql)![0];
      await db.exec(fn.replace("create function", "create or replace function"));
    }
    await db.query("insert into agents (name, kind) values ('writer', 'agent')");
    const facts = Array.from({ length: total }, (_, i) => generateFact(i * 3 + 1, total * 3)); // every third fact is Japanese
    await db.query(
      `insert into facts (scope, name, description, type, body, author_id)
       select 'shared', u.name, u.description, 'project', u.body, (select id from agents where name = 'writer')
         from unnest($1::text[], $2::text[], $3::text[]) as u(name, description, body)`,
      [facts.map((f) => f.name), facts.map((f) => f.description), facts.map((f) => f.body)],
    );
    await db.query("vacuum analyze facts");
    const rows: string[][] = [];
    for (const [label, make] of [["new", newFact], ["near-copies", nearCopy]] as const) {
      const ms: number[] = [];
      let listed = 0;
      for (let round = 0; round < 2; round++) {
        for (let n = 0; n < 300; n++) {
          const f = make(n);
          const t0 = performance.now();
          const found = (await db.query(SIMILAR_FACTS, [`${f.name} ${f.description}`, SIMILAR_THRESHOLD, true, [], "shared", f.name, SIMILAR_MAX, f.description])).rows.length;
          if (round === 1) {
            ms.push(performance.now() - t0);
            listed += found;
          }
        }
      }
      const s = summarize(ms);
      rows.push([reading, label, s.p50.toFixed(2), s.p95.toFixed(2), (listed / 300).toFixed(1)]);
    }
    return rows;
  } finally {
    await db.close();
    await database.drop();
  }
}

const rows = [...(await measure("000044")), ...(await measure("000042"))];
printTable(
  `the duplicate lookup among ${total.toLocaleString("en-US")} Japanese facts (ms; 300 lookups each)`,
  ["reading", "new fact", "p50", "p95", "listed each"],
  rows,
);
