// The rules of a fact, checked before anything touches the database, with
// messages that tell the agent exactly what to fix. The database repeats the
// essential ones as constraints (sql/migrations/000001_baseline.sql).
import { STALE_AFTER_DAYS_DEFAULT } from "../config/content.js";
import { invalid } from "../errors.js";
import { checkChars, countTrigrams, KEYWORD_MAX_CHARS, MAX_KEYWORDS, MAX_SEARCH_TRIGRAMS, REASON_MAX_CHARS } from "../limits.js";
import { charCount, CONTROL_CHARS, likePattern } from "../text.js";
import { CJK, keywordWords, sentenceParts, wordsQuery } from "./cjk-words.js";

export { charCount };

export const FACT_TYPES = ["feedback", "project", "reference"] as const;
export const FACT_STATUSES = ["draft", "confirmed", "deprecated"] as const;
export const PROMOTION_TARGETS = ["confirmed", "deprecated"] as const;

/** What can happen to a fact: the kinds of rows in fact_events. */
export const FACT_EVENT_KINDS = ["created", "updated", "confirmed", "deprecated"] as const;

export type FactType = (typeof FACT_TYPES)[number];
export type FactEventKind = (typeof FACT_EVENT_KINDS)[number];
export type FactStatus = (typeof FACT_STATUSES)[number];
export type PromotionTarget = (typeof PROMOTION_TARGETS)[number];

export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const NAME_MAX_CHARS = 64;
export const DESCRIPTION_MAX_CHARS = 200;
export { MAX_KEYWORDS };
/**
 * memory_get shows this many versions (with their events) at a time, newest
 * last: a fact may be revised without end, and every version's body is up to
 * FACT_BODY_MAX_CHARS. `versionsBefore` pages back through the older ones.
 */
export const GET_HISTORY_VERSIONS = 10;
/**
 * The duplicate warning of memory_store: facts whose "name description" has a
 * trigram similarity (pg_trgm) of at least this with the new fact's, both
 * without English function words (am_duplicate_text), are listed,
 * at most SIMILAR_MAX of them. 0.43 flags rewordings of the same rule
 * ("deploy-needs-migration Run database migrations before deploying the API" vs
 * "migrate-before-deploy Always run the migrations before a deploy": 0.43) and
 * stays above different facts of one topic (at most 0.426 on the labelled pairs
 * of test/facts/similar-quality.test.ts); lower, the index scan gets expensive
 * at scale (docs/hygiene.md).
 */
export const SIMILAR_THRESHOLD = 0.43;
export const SIMILAR_MAX = 3;


const blank = (s: string) => s.trim().length === 0;

export function validateName(name: string): string {
  if (!NAME_PATTERN.test(name) || name.length > NAME_MAX_CHARS) {
    throw invalid(
      `name "${name}" is not valid: use a kebab-case slug of lowercase letters and digits joined by single hyphens, at most ${NAME_MAX_CHARS} characters (e.g. deploy-needs-migrations).`,
    );
  }
  return name;
}

export function validateType(type: string): FactType {
  if (!(FACT_TYPES as readonly string[]).includes(type)) {
    throw invalid(`type "${type}" is not valid: use feedback (a correction someone gave), project (a decision or rule about the work) or reference (where something is).`);
  }
  return type as FactType;
}

export function validateDescription(description: string): string {
  if (blank(description)) throw invalid("description is empty: give a one-line summary of the fact (1-200 characters).");
  if (CONTROL_CHARS.test(description)) {
    throw invalid("description must be a single line: remove line breaks and control characters; put details in the body.");
  }
  checkChars("description", description, DESCRIPTION_MAX_CHARS, { advice: "Shorten it to one line and move details into the body." });
  return description;
}

export function validateBody(body: string, maxChars: number): string {
  if (blank(body)) throw invalid("body is empty: say why the fact holds and how to apply it.");
  checkChars("body", body, maxChars, { advice: "Keep one fact per record: split it into several facts or cut what the code already says." });
  return body;
}

export function validateReason(reason: string): string {
  if (blank(reason)) throw invalid(`reason is empty: say why you confirm or deprecate this fact (1-${REASON_MAX_CHARS} characters).`);
  checkChars("reason", reason, REASON_MAX_CHARS);
  return reason;
}

/**
 * A person's review in a page (the console, the review app): a deprecation
 * must say what is wrong; a confirmation without words records what was done.
 */
export const DEPRECATION_NEEDS_REASON = "Give the reason first: what is wrong and what to do instead.";
export const confirmationReason = (version: number | string, where: string): string => `Checked version ${version} in ${where}.`;

export function validateVersion(version: number | undefined): number | undefined {
  if (version !== undefined && (!Number.isInteger(version) || version < 1)) {
    throw invalid(`version must be a whole number of at least 1 (the current version shown by memory_get), got ${version}.`);
  }
  return version;
}

/**
 * Recall's near matches (typos) correct each word of a keyword against the
 * scope's vocabulary (fact_words, am_near_words): words one edit away (insert,
 * delete, substitute, swap two adjacent characters), found by symmetric deletes.
 * At most this many vocabulary words are read per keyword word, counted before
 * the edit distance is checked (a shared delete can also be two edits apart), so
 * the lookup's work is bounded whatever the vocabulary holds; past it, which
 * candidates are read is arbitrary (index order). docs/recall.md, "Near matches".
 */
export const RECALL_NEAR_WORD_CANDIDATES = 20;

/**
 * Near matches are sought only for keywords of at least this many characters,
 * and only the words of at least this many characters are corrected (shorter
 * ones must be found as written): one edit turns a three-letter word into
 * dozens of others ("teh": the, tea, ten, tech, …). The vocabulary holds words
 * of 4-40 characters (am_near_words), the same lower bound.
 */
export const RECALL_NEAR_MIN_CHARS = 4;


/**
 * The near lookups of one recall read at most this many facts in all, shared
 * among its near keywords (100 for one, 50 each for two, 10 each for ten),
 * whatever the filters (computed on the facts read, not tested before the
 * count). The index they read (facts_near_words) is exact, so every fact read
 * counts. A single typo keyword can still fill the largest page (50); past the
 * share, which near matches are found is arbitrary (index order), and the total
 * counts those found.
 */
export const RECALL_NEAR_MAX_FACTS = 100;

/**
 * A keyword written as a sentence or question (at least this many words, or
 * one fewer and a question mark) is matched by most of its words rather than
 * all (docs/recall.md, "Questions and sentences").
 */
const SENTENCE_MIN_WORDS = 4;

/**
 * Each word of a sentence keyword is looked up in at most this many readable
 * facts (the words indexes, exact): the candidates, and how rare the word is
 * (a word held by fewer weighs more). Past it, which facts holding only such
 * common words are found is arbitrary (index order).
 */
export const RECALL_SENTENCE_WORD_FACTS = 200;

/**
 * A keyword of one or two Chinese, Japanese or Korean characters (注文, 배포)
 * holds no trigram: it is looked up in at most this many readable facts in
 * all, among the facts' one- and two-character pieces (am_cjk_grams) first,
 * then by its words for as many as those left. A rare one finds all its facts;
 * for a common one, which of its facts are ranked is arbitrary (index order)
 * and the total counts those found, so its cost does not grow with the store
 * (docs/recall.md, "Short words").
 */
export const RECALL_SHORT_WORD_FACTS = 200;

/** One keyword as recall searches for it. */
export interface RecallKeyword {
  /** As given, trimmed (quotes included): what the answer names. */
  keyword: string;
  /** The text searched for (a quoted keyword without its quotes). */
  text: string;
  /** ILIKE pattern `%text%`, wildcards and the escape character escaped. */
  pattern: string;
  /** What the trigram index is asked for: `pattern`, or for a CJK keyword of several parts its longest part's. */
  indexPattern: string;
  /** A keyword in double quotes is an exact phrase: no word reordering, no near matches. */
  phrase: boolean;
  /**
   * For an unquoted keyword of several space-separated parts with Chinese,
   * Japanese or Korean text: each part's ILIKE pattern (`%part%`, escaped as
   * `pattern`). Those scripts glue words together or attach particles to them,
   * so the parts are not full-text words; the keyword matches by its words
   * when every part is a substring of the field (docs/recall.md). Else null.
   */
  parts: string[] | null;
  /**
   * For an unquoted keyword with Chinese, Japanese or Korean text: its words
   * as the service splits them (cjk-words.ts), all of which a fact's words
   * must hold (`記事のタグ` → 記事, タグ). Else null.
   */
  words: string[] | null;
  /**
   * For an unquoted keyword written as a sentence or question: its words as
   * written (for a CJK one, particles and question words left out), each
   * matched on its own; a fact matches when it holds most of those that are
   * not stop words, and the answer says which. `lexemes`: for a keyword with
   * CJK text, each word as the service's words hold it (a tsquery text). Else null.
   */
  sentence: { words: string[]; lexemes: string[] | null } | null;
}

/** The words of a keyword written as a sentence or question (see RecallKeyword.sentence), or null. */
function sentenceOf(text: string): RecallKeyword["sentence"] {
  const cjk = sentenceParts(text);
  const words = cjk ? cjk.map((w) => w.word) : (text.match(/[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu) ?? []);
  const asked = /[?？]\s*$/u.test(text);
  if (words.length < SENTENCE_MIN_WORDS && !(asked && words.length >= SENTENCE_MIN_WORDS - 1)) return null;
  return { words, lexemes: cjk ? cjk.map((w) => wordsQuery([w.key])) : null };
}

/**
 * The parts of a CJK keyword of several space-separated parts (see RecallKeyword.parts),
 * and the index pattern that finds every fact holding them all: that of the longest part
 * (a superset; the levels decide on each candidate).
 */
function cjkParts(text: string): { parts: string[]; indexPattern: string } | null {
  const words = text.split(/\s+/u).filter((w) => w.length > 0);
  if (words.length < 2 || !CJK.test(text)) return null;
  const longest = words.reduce((a, b) => ([...b].length > [...a].length ? b : a));
  return { parts: words.map(likePattern), indexPattern: likePattern(longest) };
}

/**
 * Checks the keywords and prepares each for the search: a substring pattern
 * (wildcards and the escape character escaped so that "50%" or "snake_case"
 * match literally) and whether it is a quoted phrase. Deduplicated,
 * case-insensitively.
 */
export function parseKeywords(keywords: string[]): RecallKeyword[] {
  if (keywords.length < 1 || keywords.length > MAX_KEYWORDS) {
    throw invalid(`keywords: give 1-${MAX_KEYWORDS} keywords, got ${keywords.length}.`);
  }
  const seen = new Set<string>();
  const parsed: RecallKeyword[] = [];
  keywords.forEach((raw, i) => {
    if (CONTROL_CHARS.test(raw)) {
      throw invalid(`keywords[${i}] contains a line break or control character: each keyword is a single line of text; pass several keywords instead.`);
    }
    const keyword = raw.trim();
    if (keyword.length === 0) throw invalid(`keywords[${i}] is empty: give a word or short phrase to search for.`);
    checkChars(`keywords[${i}]`, keyword, KEYWORD_MAX_CHARS, { advice: "Use a few words." });
    const quoted = /^"(.*\S.*)"$/u.exec(keyword);
    const text = quoted ? quoted[1]!.trim() : keyword;
    const folded = keyword.toLowerCase();
    if (seen.has(folded)) return;
    seen.add(folded);
    const pattern = likePattern(text);
    const sentence = quoted ? null : sentenceOf(text);
    const cjk = quoted || sentence ? null : cjkParts(text);
    parsed.push({
      keyword,
      text,
      pattern,
      indexPattern: cjk?.indexPattern ?? pattern,
      phrase: quoted !== null,
      parts: cjk?.parts ?? null,
      words: quoted || sentence ? null : keywordWords(text),
      sentence,
    });
  });
  // Every keyword is a lookup in the trigram index: bound them together, as search_nodes' query.
  if (countTrigrams(keywords, MAX_SEARCH_TRIGRAMS) > MAX_SEARCH_TRIGRAMS) {
    throw invalid(`keywords have more than ${MAX_SEARCH_TRIGRAMS} distinct trigrams together (three-letter pieces the search index looks up); that is the limit. Use fewer or shorter keywords.`);
  }
  return parsed;
}

/** The lifecycle: which promotions are allowed from which status. */
export function transitionAllowed(from: FactStatus, to: PromotionTarget): boolean {
  return (from === "draft" && (to === "confirmed" || to === "deprecated")) || (from === "confirmed" && to === "deprecated");
}

export const ALLOWED_TRANSITIONS_TEXT = "draft → confirmed, draft → deprecated, confirmed → deprecated";

/** Confirming a confirmed fact again: a new review, allowed once the fact is stale. */
export const isReconfirmation = (from: FactStatus, to: PromotionTarget): boolean => from === "confirmed" && to === "confirmed";

export { STALE_AFTER_DAYS_DEFAULT };
const DAY_MS = 86_400_000;

/**
 * Whole days since a fact's last review, for saying how long it has waited.
 * Whether it is stale is the database's answer (am_fact_stale, the `stale`
 * column of the queries that read or lock facts), never this count's.
 */
export function daysSinceReview(statusAt: string, now = Date.now()): number {
  return Math.floor((now - Date.parse(statusAt)) / DAY_MS);
}
