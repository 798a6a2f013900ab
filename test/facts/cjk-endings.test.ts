// The endings Japanese and Korean words shed (src/facts/cjk-endings.ts), by
// table: for each word, forms people write in facts and ask with (statements,
// connectives, questions, polite, past, conditional, requests, permission; the
// contracted Korean 해/했/돼/됐 forms), each reducing to the stem the others
// are stored with, on the keyword's side and the fact's alike. No database:
// recall-cjk.test.ts runs the same rules through an MCP client.
import { describe, expect, it } from "vitest";
import { isKoreanFunctionWord, koreanStem } from "../../src/facts/cjk-endings.js";
import { factWords, keywordWords } from "../../src/facts/cjk-words.js";

/** Each stem with forms of it as written: every form's words are the stem, and a fact in any form holds it. */
const KOREAN: Array<[string, string[]]> = [
  // a noun + 하다: statement, past, polite, nominal, connective, conditional, question, request, obligation
  ["배포", ["배포한다", "배포했다", "배포합니다", "배포하기", "배포하고", "배포해도", "배포해서", "배포하면", "배포하지", "배포하는", "배포할",
    "배포해요", "배포했어요", "배포하나요", "배포했나요", "배포할까요", "배포하세요", "배포하려면", "배포해야", "배포하겠습니다", "배포했습니다", "배포하였다", "배포하여"]],
  // a noun + 되다, with the contracted 돼/됐
  ["갱신", ["갱신된다", "갱신됐다", "갱신됩니다", "갱신되나요", "갱신됐나요", "갱신돼요", "갱신되면", "갱신되어", "갱신될까요", "갱신되지", "갱신되는", "갱신된", "갱신돼서", "갱신되었다"]],
  ["확인", ["확인하세요", "확인하셨나요", "확인했습니다", "확인하겠습니다", "확인해야"]],
  // plain verb stems: the ending written into the last syllable (ㄴ다, ㄹ까요, ㅂ니다), the past and the 어/아 form contracted
  ["건너뛰", ["건너뛴다", "건너뛰기", "건너뛰고", "건너뛰면", "건너뛰어도", "건너뛰어요", "건너뛰었다", "건너뛰었어요", "건너뛸까요", "건너뜁니다"]],
  ["바꾸", ["바꾼다", "바꾸기", "바꾸면", "바꿔요", "바꿔도", "바꿔서", "바꿨다", "바꿀까요", "바꿉니다"]],
  ["멈추", ["멈춘다", "멈춰요", "멈췄다", "멈추면", "멈춥니다"]],
  ["끝내", ["끝낸다", "끝냈다", "끝내요", "끝내기", "끝냅니다"]],
  ["고치", ["고친다", "고쳐요", "고쳤다", "고치면"]],
  ["기다리", ["기다린다", "기다려요", "기다렸다", "기다리면"]],
  // nouns with their particles
  ["리뷰", ["리뷰", "리뷰는", "리뷰를", "리뷰가", "리뷰에서", "리뷰도"]],
  ["화요일", ["화요일", "화요일에", "화요일에는"]],
  ["인증서", ["인증서", "인증서가", "인증서는", "인증서도"]],
];

/** Words that keep what looks like an ending: a noun's own last syllable, or too short a stem. */
const KOREAN_KEPT = ["인증서", "보고서", "메시지", "이미지", "필요", "관리화면", "명이", "하나"];

/** Forms of 하다, 되다 and 않다 alone: not words to match. */
const KOREAN_AUXILIARIES = ["했다", "해요", "해도", "하나요", "할까요", "되나요", "됐나요", "돼요", "않는다", "않나요", "하지만"];

const JAPANESE: Array<[string, string[]]> = [
  // a noun + する / できる / される: polite, past, permission, ability, passive, request, negative, wish, conditional, volitional
  ["公開", ["公開する", "公開した", "公開しました", "公開してもいい", "公開してもいいですか", "公開しても良い", "公開できますか", "公開できない",
    "公開された", "公開されている", "公開してください", "公開しないでください", "公開しない", "公開しなかった", "公開しません", "公開したい",
    "公開すれば", "公開したら", "公開しよう", "公開しましょう", "公開しておく", "公開させる", "公開しなければならない", "公開してみる",
    "公開してしまった", "公開していただけますか", "公開すべき"]],
  ["デプロイ", ["デプロイする", "デプロイしました", "デプロイできますか", "デプロイされた", "デプロイしてください", "デプロイしちゃう",
    "デプロイしています", "デプロイできなかった", "デプロイしませんでした", "デプロイしてもらう"]],
  ["削除", ["削除する", "削除された", "削除されました", "削除されますか", "削除しておきました", "削除してほしい"]],
  // a verb of kanji and kana: its kanji part
  ["付", ["付ける", "付けて", "付けました", "付けられる", "付けられますか", "付けてください", "付けない"]],
  ["使", ["使う", "使って", "使いました", "使えますか", "使われる", "使わない", "使ってもいい"]],
];

const forms = (table: Array<[string, string[]]>) => table.flatMap(([stem, written]) => written.map((form) => [form, stem] as const));

describe("Korean endings", () => {
  it("has a table of at least 50 forms", () => {
    expect(forms(KOREAN).length).toBeGreaterThanOrEqual(50);
  });

  it.each(forms(KOREAN))("%s reduces to %s, as a keyword and in a fact", (form, stem) => {
    expect(koreanStem(form)).toBe(stem);
    expect(keywordWords(form)).toEqual([stem]);
    expect(factWords(form)).toContain(stem);
  });

  it.each(KOREAN_KEPT)("%s keeps its last syllable", (word) => {
    expect(keywordWords(word)).toEqual([word]);
  });

  it.each(KOREAN_AUXILIARIES)("%s alone is not a word to match", (word) => {
    expect(isKoreanFunctionWord(word)).toBe(true);
    expect(keywordWords(word)).toBeNull();
    expect(factWords(word)).toEqual([]);
  });

  it("reduces the words of a question or a phrase, each on its own", () => {
    expect(keywordWords("목요일에 배포하나요?")).toEqual(["목요일", "배포"]);
    expect(keywordWords("화요일에 배포해도 되나요?")).toEqual(["화요일", "배포"]);
    expect(keywordWords("배포하지 않는다")).toEqual(["배포"]);
    expect(keywordWords("중복을 건너뛰기")).toEqual(["중복", "건너뛰"]);
    expect(factWords("이벤트 ID를 저장하고 중복을 건너뛴다.")).toEqual(expect.arrayContaining(["중복", "건너뛰"]));
  });
});

describe("Japanese endings", () => {
  it("has a table of at least 50 forms", () => {
    expect(forms(JAPANESE).length).toBeGreaterThanOrEqual(50);
  });

  it.each(forms(JAPANESE))("%s is found by %s, as a keyword and in a fact", (form, stem) => {
    expect(keywordWords(form)).toEqual([stem]);
    expect(factWords(form)).toContain(stem);
  });

  it("keeps the other words of a sentence", () => {
    expect(keywordWords("金曜日に記事を公開してもいい")).toEqual(["金曜", "記事", "公開"]);
    expect(keywordWords("本番にデプロイしてください")).toEqual(["本番", "デプロイ"]);
  });
});
