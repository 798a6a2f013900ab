// The words of Chinese, Japanese and Korean text, for recall. Those scripts do
// not put spaces between words (Korean puts them between phrases, each word
// carrying its particle), so Postgres' text search parser sees a sentence as
// one token. The service splits such text itself, the same way on both sides:
// a fact's words when it is written (facts.search_cjk), a keyword's when it is
// recalled. Splitting in Node rather than in SQL keeps Postgres and the
// embedded database alike (neither ships a CJK parser) and costs no dependency:
// Node's ICU word segmenter holds a Chinese/Japanese dictionary
// ("デプロイの凍結" → デプロイ | の | 凍結). docs/recall.md, "Words of Chinese,
// Japanese and Korean text".
//
// On top of the segmenter, a few rules make one word match as people write it:
// - Japanese particles, auxiliaries and the pieces of the endings of する,
//   できる and される (の を は が に で と も, して/しま/した, でき/ます, くだ/さい,
//   ない, いい …) are not words to match, nor is any single hiragana character,
//   nor a piece starting with っ or ん (the inflections the segmenter cuts off:
//   書 | い | て, 取 | って). cjk-endings.ts owns these lists.
// - A Japanese word of kanji then hiragana (a verb or adjective with its
//   ending: 付ける, 付け, 書き込み) is matched by its kanji part (付, 書き込),
//   so every conjugation of it meets every other: タグを付けて finds
//   タグを付ける.
// - A Korean word is matched by its stem, without its particle and predicate
//   endings (리뷰를 finds 리뷰는, 배포해도 finds 배포한다, 건너뛰기 finds
//   건너뛴다: cjk-endings.ts); a form of 하다, 되다 or 않다 alone (했다, 되나요) is
//   not a word to match. A fact also holds each two adjacent Korean words
//   written together (코드 리뷰 → 코드리뷰), so a compound finds its parts
//   written apart.
// - A day of the week matches with or without 日 (金曜日 finds 金曜).
// - In a keyword written as a question, question words and the endings that
//   ask (何, いつ, どう, いい; 몇, 언제, 되나요 …) are not words to match.

import { isKoreanFunctionWord, JAPANESE_FUNCTION_WORDS, koreanForms, koreanStem } from "./cjk-endings.js";

/** Which rules and which dictionary made a fact's words: facts made by others are segmented again (backfill.ts). */
export const CJK_WORD_RULES = `3/icu-${process.versions.icu ?? "none"}`;

const SEGMENTER = new Intl.Segmenter("ja", { granularity: "word" });

/** Han, Hiragana, Katakana, Hangul: scripts whose words full-text search cannot split out. */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const HIRAGANA_ONLY = /^\p{Script=Hiragana}+$/u;
const HANGUL_ONLY = /^\p{Script=Hangul}+$/u;
/** A word of kanji, then hiragana: its kanji part (up to the last kanji) is what its conjugations share. */
const KANJI_THEN_KANA = /^(\p{Script=Han}.*\p{Script=Han}|\p{Script=Han})\p{Script=Hiragana}+$/u;

interface Segment {
  word: string;
  /** The segment is a Korean word that follows the previous one across white space only. */
  joinsPrevious: boolean;
}

/** The word-like segments of text, NFKC-normalized (full-width and half-width forms alike) and lowercased. */
function segments(text: string): Segment[] {
  const out: Segment[] = [];
  let previousEnd = -1;
  const normalized = text.normalize("NFKC").toLowerCase();
  for (const s of SEGMENTER.segment(normalized)) {
    if (!s.isWordLike) continue;
    const gap = previousEnd < 0 ? null : normalized.slice(previousEnd, s.index);
    const previous = out[out.length - 1];
    out.push({
      word: s.segment,
      joinsPrevious: previous !== undefined && gap !== null && /^\s+$/u.test(gap) && HANGUL_ONLY.test(previous.word) && HANGUL_ONLY.test(s.segment),
    });
    previousEnd = s.index + s.segment.length;
  }
  return out;
}

/**
 * Words that ask rather than say, in a keyword written as a question: they are
 * not words the answer holds (金曜日に記事を公開してもいい？ asks about 金曜日,
 * 記事, 公開; 배포는 금요일에 해도 되나요? about 배포, 금요일).
 */
const QUESTION_WORDS = new Set(
  (
    "何 なに なん 何故 なぜ いつ どこ どう どうして どの どれ どんな 誰 だれ いくつ いくら いい よい 良い かな でしょう でしょ " +
    "몇 뭐 무엇 무엇을 언제 어디 어디서 어떻게 어떤 왜 누가 누구 어느 수 있나요 없나요 되나요 하나요 해도 인가요 있을까요 할까요 될까요 괜찮나요 좋나요 돼요 돼"
  ).split(" "),
);

/** A day of the week written with 日 (金曜日) is matched by its shorter form (金曜), which both forms hold. */
const WEEKDAY_WITH_DAY = /^(\p{Script=Han}曜)日$/u;

/** A hiragana piece no word starts with (っ, ん) is an inflection the segmenter cut off: 取 | って, 選 | んで. */
const INFLECTION_PIECE = /^[っん]\p{Script=Hiragana}*$/u;

const isFunctionWord = (word: string) =>
  JAPANESE_FUNCTION_WORDS.has(word) || (HIRAGANA_ONLY.test(word) && word.length === 1) || INFLECTION_PIECE.test(word) || isKoreanFunctionWord(word);

/** What a keyword's word is matched by (see the top of this file). */
function keyOf(word: string): string {
  if (HANGUL_ONLY.test(word)) return koreanStem(word);
  return WEEKDAY_WITH_DAY.exec(word)?.[1] ?? KANJI_THEN_KANA.exec(word)?.[1] ?? word;
}

/**
 * Everything a fact's word can be matched by: itself, its kanji part, or for
 * Korean each form its endings leave down to its stem (whichever of them a
 * keyword's word reduces to).
 */
function factKeysOf(word: string): string[] {
  if (HANGUL_ONLY.test(word)) return koreanForms(word);
  const shorter = WEEKDAY_WITH_DAY.exec(word)?.[1] ?? KANJI_THEN_KANA.exec(word)?.[1];
  return shorter === undefined ? [word] : [word, shorter];
}

/**
 * The words a fact's text is found by. A Korean
 * word written after another (코드 리뷰는) also gives both together (코드리뷰는,
 * 코드리뷰): a keyword written as one compound finds them.
 */
export function factWords(text: string): string[] {
  const words = new Set<string>();
  let previous: string | null = null;
  for (const { word, joinsPrevious } of segments(text)) {
    if (isFunctionWord(word)) {
      previous = null;
      continue;
    }
    const keys = factKeysOf(word);
    for (const key of keys) words.add(key);
    // The first word of a compound carries no ending (코드를 리뷰 is not 코드리뷰).
    if (joinsPrevious && previous !== null && koreanStem(previous) === previous) {
      for (const key of keys) words.add(previous + key);
    }
    previous = word;
  }
  return [...words];
}

/**
 * The parameters $8-$10 of CREATE_FACT and UPDATE_FACT (sql.ts): the words of
 * the name and description, those of the body, and the rules that made them.
 * A fact without Chinese, Japanese or Korean text has none (full-text search
 * matches its words); one with such text anywhere has all its words, so that a
 * keyword mixing scripts (`Qiitaの記事`) finds it.
 */
export function factWordsParams(name: string, description: string, body: string): [string[], string[], string] {
  const head = `${name}\n${description}`;
  const words = body.length > BODY_WORDS_CHARS ? body.slice(0, BODY_WORDS_CHARS) : body;
  if (!CJK.test(head) && !CJK.test(words)) return [[], [], CJK_WORD_RULES];
  return [factWords(head), factWords(words), CJK_WORD_RULES];
}

/**
 * Only this many characters of a body are split into words, as full-text search
 * reads only as many (facts.search_body): the segmenter takes about 1 ms per
 * 1,000 characters on the event loop, so a body of the largest size a setting
 * allows (FACT_BODY_MAX_CHARS) would hold every other call for a second.
 */
const BODY_WORDS_CHARS = 100_000;

/**
 * The words a keyword with Chinese, Japanese or Korean text is matched by,
 * all of which a fact must hold (null for any other keyword, or one of
 * particles only): `記事のタグ` → 記事, タグ; `리뷰를` → 리뷰; `タグを付けて` → タグ, 付.
 */
export function keywordWords(keyword: string): string[] | null {
  const words = keywordParts(keyword);
  return words === null ? null : [...new Set(words.map(keyOf))];
}

/**
 * The words of a keyword with Chinese, Japanese or Korean text as written
 * (particles left out), to suggest as keywords of their own when it finds
 * nothing: `記事のコメント` → 記事, コメント. Null for any other keyword.
 */
export function keywordParts(keyword: string): string[] | null {
  if (!CJK.test(keyword)) return null;
  // A keyword written as a question: its question words are not words an answer holds.
  const asking = /[?？]\s*$/u.test(keyword);
  const words = [...new Set(segments(keyword).map((s) => s.word).filter((w) => !isFunctionWord(w) && !(asking && QUESTION_WORDS.has(w))))];
  return words.length > 0 ? words : null;
}

/**
 * The words of a keyword with Chinese, Japanese or Korean text written as a
 * sentence or question, as written (particles and question words left out),
 * each with the word a fact's words are matched by: Qiitaのタグは何個まで付けられる？
 * → qiita, タグ, 個, 付け (付). Null for any other keyword.
 */
export function sentenceParts(keyword: string): Array<{ word: string; key: string }> | null {
  const words = keywordParts(keyword);
  if (words === null) return null;
  return words.filter((w) => !QUESTION_WORDS.has(w)).map((word) => ({ word, key: keyOf(word) }));
}

/**
 * The text of a tsquery that holds when a fact has every one of `words`
 * (facts.search_cjk): each a quoted lexeme taken whole, never parsed again
 * (its backslashes and quotes escaped), ANDed.
 */
export function wordsQuery(words: string[]): string {
  return words.map((w) => `'${w.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`).join(" & ");
}
