// A keyword of one or two Chinese, Japanese or Korean characters holds no
// trigram: the trigram index proposed every fact of the readable scopes for it,
// each rechecked (about 1.4 s a recall at 100,000 facts). It is looked up
// among the facts' pieces (facts_cjk_grams, am_cjk_grams) instead: a rare one
// fetches its own facts, a common one at most RECALL_SHORT_WORD_FACTS of them
// by its pieces and as many by its words, whatever the scopes hold, and facts
// the caller cannot read are never fetched.
//
// Counted, not timed (as exact-bound.test.ts): the rows of facts the statement
// fetched, from the table statistics of its own transaction, through
// am_recall as the service runs it.
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { recallParams } from "../../src/facts/recall/recall.js";
import { RECALL_CALL } from "../../src/facts/recall/recall-sql.js";
import { parseKeywords, RECALL_SHORT_WORD_FACTS } from "../../src/facts/rules.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller } from "./helpers.js";

const RARE = 20;
const COMMON = RECALL_SHORT_WORD_FACTS * 2;
const OTHERS = 1000;

describe.each(BACKENDS)("recall of a one- or two-character CJK keyword on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    const writer = await addCaller(tdb.db, "writer", { scopes: ["team", "other"] });
    const insert = (scope: string, prefix: string, description: string, count: number) =>
      tdb.db.query(
        `insert into facts (scope, name, description, type, body, author_id)
         select $1::text, $2::text || i, $3::text || i, 'project', '理由: 障害' || i || 'では復旧に時間がかかった。', $4::bigint from generate_series(1, $5::int) as i`,
        [scope, prefix, description, writer.agentId, count],
      );
    await insert("team", "rare-", "猫舌チームに変更を共有する", RARE);
    await insert("team", "common-", "注文サービスを変更する前にテストを実行する", COMMON);
    await insert("team", "other-", "決済サービスの設定を変更する前に確認する", OTHERS);
    // Facts holding the rare word in a scope the reader cannot read.
    await insert("other", "hidden-", "猫舌チームに変更を共有する", OTHERS);
    await tdb.db.query("vacuum analyze facts");
  }, 240_000);

  const team = { all: false, scopes: ["team"] };

  it("a rare one fetches its own facts, not the readable scope's others nor another scope's", async () => {
    for (const keyword of ["猫舌", "猫"]) {
      const { total, facts } = await recallCounted(tdb.db, [keyword], team);
      expect(total, keyword).toBe(RARE);
      expect(facts, `${keyword}: ${facts} rows of facts fetched`).toBeLessThanOrEqual(RARE * 5);
    }
  });

  it("a common one fetches at most its bound, and finds as many", async () => {
    const { total, facts } = await recallCounted(tdb.db, ["注文"], team);
    expect(total).toBe(RECALL_SHORT_WORD_FACTS);
    expect(facts, `${facts} rows of facts fetched`).toBeLessThanOrEqual(RECALL_SHORT_WORD_FACTS * 5);
  });

  it("a reader of every scope looks the pieces up without the scope, and finds both scopes' facts", async () => {
    const { total } = await recallCounted(tdb.db, ["猫舌"], { all: true, scopes: [] });
    expect(total).toBe(Math.min(RARE + OTHERS, RECALL_SHORT_WORD_FACTS));
  });

  it("a longer keyword and a short one together: each finds its own", async () => {
    const { total } = await recallCounted(tdb.db, ["猫舌", "猫舌チーム"], team);
    expect(total).toBe(RARE);
  });
});

async function recallCounted(db: Database, keywords: string[], readable: { all: boolean; scopes: string[] }): Promise<{ total: number; facts: number }> {
  const params = recallParams(parseKeywords(keywords), readable, {}, 50);
  return db.transaction(async (tx) => {
    const count = async () =>
      Number(
        (await tx.query<{ n: string }>("select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n from pg_stat_xact_user_tables where relname = 'facts'")).rows[0]
          ?.n ?? 0,
      );
    const before = await count();
    const rows = (await tx.query<{ r: { total: number } }>(RECALL_CALL, params)).rows;
    return { total: rows[0]?.r.total ?? 0, facts: (await count()) - before };
  });
}
