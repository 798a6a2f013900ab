// The duplicate warning on Japanese, Korean and Chinese facts (am_duplicate_text): labelled
// pairs of similar-pairs.ts through the lookup memory_store runs, on both
// databases, with the errors that remain named; how a text is read; and the
// migration, which writes again only the facts whose reading it changes.
import { beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { storePairs } from "./helpers.js";
import { CJK_KNOWN_ERRORS, DIFFERENT_FACTS_CJK, DIFFERENT_FACTS_ZH, SAME_FACT_CJK, SAME_FACT_ZH } from "./similar-pairs.js";

describe.each(BACKENDS)("the duplicate warning in Japanese, Korean and Chinese, on %s", (backend) => {
  let tdb: TestDatabase;
  const pairs = [
    ...[...SAME_FACT_CJK, ...SAME_FACT_ZH].map((p) => ({ p, same: true })),
    ...[...DIFFERENT_FACTS_CJK, ...DIFFERENT_FACTS_ZH].map((p) => ({ p, same: false })),
  ];
  let similarTo: (i: number) => Promise<unknown[]>;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    ({ similarTo } = await storePairs(tdb.db, pairs.map(({ p }) => p)));
  });

  const reading = async (text: string) => (await tdb.db.query<{ t: string }>("select am_duplicate_text($1) as t", [text])).rows[0]!.t;

  it("lists the rewordings and leaves out the different facts, but for the errors named in similar-pairs.ts", async () => {
    const missed: string[] = [];
    const listedWrongly: string[] = [];
    for (const [i, { p, same }] of pairs.entries()) {
      const [, [name, description]] = p;
      const listed = (await similarTo(i)).length > 0;
      if (same && !listed) missed.push(`${name}: ${description}`);
      if (!same && listed) listedWrongly.push(`${name}: ${description}`);
    }
    expect({ missed, listedWrongly }).toEqual(CJK_KNOWN_ERRORS);
  });

  it("reads kanji as overlapping pairs, katakana whole, leaves hiragana out, and Korean, English and mixed words as before", async () => {
    expect(await reading("deploy-needs-migrations: 本番デプロイの前に必ずマイグレーションを流す")).toBe("deploy needs migrations 本番 デプロイ 前 必 マイグレーション 流");
    expect(await reading("日曜日の夜、数据库迁移")).toBe("日曜 曜日 夜 数据 据库 库迁 迁移");
    expect(await reading("公開APIはキーごとに毎分100リクエストまで")).toBe("公開 api キー 毎分 100 リクエスト");
    // Half-width katakana and the iteration mark are letters of these scripts too.
    expect(await reading("ﾃﾞﾌﾟﾛｲは時々")).toBe("ﾃﾞﾌﾟﾛｲ 時々");
    // Hiragana only: nothing left, as for English function words (the lookup then finds copies only).
    expect(await reading("これはそれです")).toBe("");
    expect(await reading("Qiita 태그는 5개까지만 붙일 수 있다")).toBe("qiita 태그는 5개까지만 붙일 수 있다");
    expect(await reading("The queue is drained before a restart of the workers")).toBe("queue drained restart workers");
    // In a text that holds Japanese, English words still lose their function words.
    expect(await reading("the deploy of 本番")).toBe("deploy 本番");
    // ー goes with the hiragana it lengthens; 〆, 〇 and kanji beyond the BMP are kanji.
    expect(await reading("らーめんを食べる")).toBe("食");
    expect(await reading("〆切は二〇二四年、𠮷野家")).toBe("〆切 二〇 〇二 二四 四年 𠮷野 野家");
  });
});
