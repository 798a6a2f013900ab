// Japanese and Korean as people write them, through a real MCP client on both
// databases: a keyword with particles (記事のタグ), another conjugation
// (タグを付けて), a compound written together (タグ付け, 코드리뷰), a Korean word
// with another particle (리뷰를 for 리뷰는) all find the fact (the misses of the
// new-user trial); the words are ANDed and ranked like English; an empty
// answer names the keyword's words that find something; facts written before
// segmentation get their words from the start-up walk (cjk-backfill.ts).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { segmentOlderFacts } from "../../src/facts/lifecycle/cjk-backfill.js";
import { CJK_WORD_RULES, factWords, keywordParts, keywordWords, wordsQuery } from "../../src/facts/cjk-words.js";
import { replayCreate } from "../../src/facts/index.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { addCaller } from "./helpers.js";

interface Hit {
  name: string;
  matches: Array<{ keyword: string; in: string; how: string }>;
}

describe("the words of CJK text", () => {
  it("drops particles and endings, keys conjugations by their kanji, and sheds Korean particles", () => {
    expect(keywordWords("記事のタグ")).toEqual(["記事", "タグ"]);
    expect(keywordWords("タグを付けて")).toEqual(["タグ", "付"]);
    expect(keywordWords("タグ付け")).toEqual(["タグ", "付"]);
    expect(keywordWords("리뷰를")).toEqual(["리뷰"]);
    expect(keywordWords("実行する")).toEqual(["実行"]);
    expect(keywordWords("の")).toBeNull();
    expect(keywordWords("deploy")).toBeNull();
    // Full-width and half-width forms are the same word.
    expect(keywordWords("ｱﾌﾟﾘのＡＰＩ")).toEqual(["アプリ", "api"]);
    expect(keywordParts("タグを付けて")).toEqual(["タグ", "付け"]);
    // Words go to Postgres as quoted lexemes, taken whole.
    expect(wordsQuery(["it's", "a\\b", "タグ"])).toBe("'it''s' & 'a\\\\b' & 'タグ'");
  });

  it("gives a fact every form a keyword can take: the word, its kanji part, without its Korean ending, Korean words joined", () => {
    const ja = factWords("ブログ記事には公開前に必ずタグを付ける");
    expect(ja).toEqual(expect.arrayContaining(["ブログ", "記事", "タグ", "付ける", "付"]));
    expect(ja).not.toContain("に");
    const ko = factWords("코드 리뷰는 작성자가 아닌 사람이 한다");
    expect(ko).toEqual(expect.arrayContaining(["코드", "리뷰는", "리뷰", "코드리뷰", "작성자"]));
    // Two syllables at least remain: 명이 is not 명 + 이.
    expect(factWords("두 명이")).toContain("명이");
    expect(factWords("두 명이")).not.toContain("명");
  });
});

describe.each(BACKENDS)("recall of Japanese and Korean as written on %s", (backend) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let reader: Client;
  let writer: Client;

  async function recall(keywords: string[]) {
    const r = (await reader.callTool({ name: "memory_recall", arguments: { keywords, scope: "blog" } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    return { text: textOf(r), structured: r.structuredContent as { hits: Hit[]; total: number; wordHints?: unknown } };
  }
  const names = async (...keywords: string[]) => (await recall(keywords)).structured.hits.map((h) => h.name);
  async function storeFact(name: string, description: string, body: string) {
    const r = (await writer.callTool({ name: "memory_store", arguments: { scope: "blog", name, description, type: "project", body } })) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
  }

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    service = await startInProcessService(tdb.db);
    const w = await addCaller(tdb.db, "writer", { scopes: ["blog"] });
    const r = await addCaller(tdb.db, "reader", { readScopes: ["blog"] });
    writer = await connectClient(service, w.token, "writer");
    reader = await connectClient(service, r.token, "reader");
    await storeFact("blog-tags", "ブログ記事には公開前に必ずタグを付ける", "タグがない記事は検索に出ない。");
    await storeFact("code-review", "코드 리뷰는 작성자가 아닌 사람이 한다", "리뷰는 병합 전에 끝낸다.");
    await storeFact("hotfix-review", "핫픽스도 코드리뷰를 거친다", "긴급한 경우에도 한 명은 본다.");
    await storeFact("deploy-freeze", "Deploy freeze", "金曜日の午後はデプロイを凍結する。週末に対応できる人がいない。");
    await storeFact("comment-policy", "コメント欄は承認制にする", "スパムが多いため。");
    await storeFact("quote-word", "Words we avoid", "can'tという単語は使わない。");
    await storeFact("deploy-days", "배포는 화요일과 목요일에 한다", "금요일에는 배포하지 않는다.");
  }, 60_000);

  it("finds a fact by its words with particles, other conjugations and the compound written together", async () => {
    for (const keyword of ["記事のタグ", "タグを付けて", "タグ付け", "記事 タグ", "タグ", "公開前のタグ付け"]) {
      expect(await names(keyword), keyword).toEqual(["blog-tags"]);
    }
    expect(await names("デプロイの凍結")).toEqual(["deploy-freeze"]);
    // A word with a quote reaches the database whole.
    expect(await names("単語のcan't")).toEqual(["quote-word"]);
    expect(await names("金曜日にデプロイ")).toEqual(["deploy-freeze"]);
  });

  it("finds a Korean word with or without its particle, and a compound written together or apart", async () => {
    expect((await names("리뷰를")).sort()).toEqual(["code-review", "hotfix-review"]);
    expect((await names("코드리뷰")).sort()).toEqual(["code-review", "hotfix-review"]);
    expect((await names("코드 리뷰")).sort()).toEqual(["code-review", "hotfix-review"]);
    expect(await names("작성자가 아닌 사람")).toEqual(["code-review"]);
  });

  it("finds a fact as people conjugate and ask: Korean 하다/되다 endings, Japanese する/できる/される forms", async () => {
    for (const keyword of ["배포해도", "배포했어요", "목요일에 배포하나요?", "화요일에 배포해도 되나요?", "배포할까요"]) {
      expect(await names(keyword), keyword).toEqual(["deploy-days"]);
    }
    for (const keyword of ["凍結してもいい", "凍結しました", "凍結できますか", "凍結された", "凍結してください", "デプロイを凍結してもいいですか？"]) {
      expect(await names(keyword), keyword).toEqual(["deploy-freeze"]);
    }
  });

  it("finds a keyword of one or two characters, as a substring, through the index of pieces", async () => {
    expect(await names("凍結")).toEqual(["deploy-freeze"]);
    expect(await names("배포")).toEqual(["deploy-days"]);
    expect((await names("리뷰")).sort()).toEqual(["code-review", "hotfix-review"]);
    expect(await names("欄")).toEqual(["comment-policy"]);
    expect(await names("猫")).toEqual([]);
    const { structured } = await recall(["凍結"]);
    expect(structured.hits[0]!.matches).toEqual([{ keyword: "凍結", in: "body", how: "exact" }]);
  });

  it("ANDs a keyword's words and says the match is by words, in the field where they are", async () => {
    expect(await names("記事のコメント")).toEqual([]);
    const { structured } = await recall(["タグを付けて"]);
    expect(structured.hits[0]!.matches).toEqual([{ keyword: "タグを付けて", in: "summary", how: "stemmed" }]);
    const body = await recall(["金曜日にデプロイ"]);
    expect(body.structured.hits[0]!.matches).toEqual([{ keyword: "金曜日にデプロイ", in: "body", how: "stemmed" }]);
    // Ranked with the same points as English: two keywords beat one.
    expect(await names("コメント", "承認制にする")).toEqual(["comment-policy"]);
  });

  it("when nothing matches, says which of a keyword's words find facts alone and suggests them as keywords", async () => {
    const { text, structured } = await recall(["記事のレビュー"]);
    expect(structured.total).toBe(0);
    expect(text).toContain('Of the words of "記事のレビュー" on their own, 記事 is in 1 fact: try them as separate keywords, ["記事","レビュー"].');
    expect(structured.wordHints).toEqual([{ keyword: "記事のレビュー", words: [{ word: "記事", facts: 1 }, { word: "レビュー", facts: 0 }] }]);
    const none = await recall(["猫の写真"]);
    expect(none.text).toContain('None of the words of "猫の写真" (猫, 写真) is found on its own either.');
    // An English keyword gets no such hint.
    expect((await recall(["nothing here"])).structured.wordHints).toBeUndefined();
  });

  it("segments the facts written before, at start, once per rules, and an import writes the words", async () => {
    // As a fact written before segmentation: no words, no rules.
    await tdb.db.query("update facts set search_cjk = ''::tsvector, search_cjk_rules = null where name = 'blog-tags'");
    await tdb.db.query("delete from fact_cjk_rules_done");
    expect(await names("記事のタグ")).toEqual([]);
    const logger = pino({ level: "silent" });
    expect(await segmentOlderFacts(tdb.db, logger, () => false)).toBe(1);
    expect(await names("記事のタグ")).toEqual(["blog-tags"]);
    expect((await tdb.db.query<{ rules: string }>("select search_cjk_rules as rules from facts where name = 'blog-tags'")).rows[0]!.rules).toBe(CJK_WORD_RULES);
    // Recorded: the next start reads nothing.
    await tdb.db.query("update facts set search_cjk = ''::tsvector, search_cjk_rules = null where name = 'blog-tags'");
    expect(await segmentOlderFacts(tdb.db, logger, () => false)).toBe(0);

    const authorId = (await tdb.db.query<{ id: number }>("select id from agents where name = 'writer'")).rows[0]!.id;
    await tdb.db.transaction((tx) =>
      replayCreate(tx, "blog", "imported-ja", { description: "インポートした事実", type: "project", body: "移行前のバックアップを取る。" }, authorId, new Date().toISOString()),
    );
    expect(await names("バックアップを取って")).toEqual(["imported-ja"]);
  });
});
