// Recall: the facts that match an agent's keywords, best first, in one query;
// the caller's readable scopes filter in SQL.
import type { Caller } from "../../auth/caller.js";
import { readableScopes } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { type FactSummary, isoTime, type SummaryRow } from "../model.js";
import { charCount, type FactStatus, type FactType, parseKeywords, RECALL_NEAR_MAX_FACTS, RECALL_NEAR_MIN_CHARS, RECALL_NEAR_WORD_CANDIDATES, RECALL_SENTENCE_WORD_FACTS, RECALL_SHORT_WORD_FACTS, type RecallKeyword, STALE_AFTER_DAYS_DEFAULT } from "../rules.js";
import { wordsQuery } from "../cjk-words.js";
import { PREVIOUS_CONFIRMATION, RECALL_CALL } from "./recall-sql.js";
import { addSuccessors } from "../trust/supersession.js";
import { checkWholeNumber, RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT } from "../../limits.js";
import { optionalReadableScope } from "../lifecycle/get.js";
import { prepared } from "../prepared.js";


export interface RecallInput {
  keywords: string[];
  type?: FactType | undefined;
  status?: FactStatus | undefined;
  scope?: string | undefined;
  limit?: number | undefined;
}

/**
 * How a keyword matched: as written, by its words (stemmed, any order, or the
 * quoted phrase), nearly (a typo), or, for a keyword written as a sentence or
 * question, by most of its words (`words` says which).
 */
type MatchKind = "exact" | "stemmed" | "similar" | "most-words";
/** Where: the fact's summary (its name or one-line description, ranked first) or its body. */
export type MatchField = "summary" | "body";

export interface RecallMatch {
  /** The keyword as given. */
  keyword: string;
  in: MatchField;
  how: MatchKind;
  /** For "most-words": the keyword's words the fact holds. */
  words?: string[];
}

export interface RecallHit extends FactSummary {
  /** The body, or the part of it recall searches (am_fact_search_body) when bodyTruncated. */
  body: string;
  bodyTruncated: boolean;
  /** Where a keyword matched best; name/description hits rank first. */
  matchedIn: MatchField;
  /** Why it was found: each keyword that matched, where and how (best match per keyword). */
  matches: RecallMatch[];
  /** Confirmed, but nobody has reviewed it for more than STALE_AFTER_DAYS. */
  stale: boolean;
  /** A draft of a later version whose earlier version had been confirmed (its last review): which, by whom, when (ISO). */
  confirmedBefore?: { version: number; by: string; at: string };
  /** A draft that, when stored, looked like this confirmed fact (the duplicate warning): follow that one. */
  copyOf?: { scope: string; name: string };
  /** A deprecated fact that a confirmed one replaced: that one, as "scope/name". */
  supersededBy?: string;
}

export interface ReadOptions {
  /** Days after which a confirmed fact counts as stale (default STALE_AFTER_DAYS_DEFAULT). */
  staleAfterDays?: number;
}

export interface RecallResult {
  hits: RecallHit[];
  /** How many facts matched in all (before the limit). */
  total: number;
  /** True when more facts matched than were returned. */
  truncated: boolean;
}

// The levels of RECALL (recall-sql.ts EXACT_LEVEL, NEAR_LEVEL), 1-6.
const LEVELS: Record<number, { in: MatchField; how: MatchKind }> = {
  1: { in: "summary", how: "exact" },
  2: { in: "summary", how: "stemmed" },
  3: { in: "body", how: "exact" },
  4: { in: "body", how: "stemmed" },
  5: { in: "summary", how: "similar" },
  6: { in: "body", how: "similar" },
  7: { in: "summary", how: "most-words" },
  8: { in: "body", how: "most-words" },
};

interface RecallFilters {
  type?: FactType | undefined;
  status?: FactStatus | undefined;
  /** Already checked to be readable. */
  scope?: string | undefined;
}

/** The parameters of RECALL and RECALL_CALL, in order (also used by the plan tests and the bench). */
export function recallParams(
  keywords: RecallKeyword[],
  readable: { all: boolean; scopes: string[] },
  filters: RecallFilters,
  limit: number,
  staleAfterDays = STALE_AFTER_DAYS_DEFAULT,
): unknown[] {
  return [
    keywords.map((k) => k.pattern),
    keywords.map((k) => k.text),
    keywords.map((k) => k.phrase),
    readable.all,
    readable.scopes,
    filters.type ?? null,
    filters.status ?? null,
    filters.scope ?? null,
    limit,
    staleAfterDays,
    RECALL_NEAR_WORD_CANDIDATES,
    RECALL_NEAR_MIN_CHARS,
    keywords.map((k) => k.indexPattern),
    RECALL_NEAR_MAX_FACTS,
    // A CJK keyword's parts, one string per keyword (null for the others): a keyword holds no line break.
    keywords.map((k) => (k.parts === null ? null : k.parts.join("\n"))),
    // A CJK keyword's words as a tsquery of them all (null for the others).
    keywords.map((k) => (k.words === null ? null : wordsQuery(k.words))),
    // A sentence keyword's words, and for a CJK one each word's lexeme query, one string per keyword (null for the others).
    keywords.map((k) => (k.sentence === null ? null : k.sentence.words.join("\n"))),
    keywords.map((k) => (k.sentence?.lexemes ? k.sentence.lexemes.join("\n") : null)),
    RECALL_SENTENCE_WORD_FACTS,
    RECALL_SHORT_WORD_FACTS,
  ];
}

export async function recallFacts(db: Queryable, caller: Caller, input: RecallInput, options: ReadOptions = {}): Promise<RecallResult> {
  const staleAfter = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const keywords = parseKeywords(input.keywords);
  const scope = optionalReadableScope(caller, input.scope);
  const limit = boundedLimit(input.limit, RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT);
  const params = recallParams(keywords, readableScopes(caller), { type: input.type, status: input.status, scope }, limit, staleAfter);
  // One JSON object per row (am_recall returns RECALL's rows as JSON): timestamps come as strings, which toSummary reads too.
  const rows = (await db.query<{ r: RecallRow & { total: number } }>(RECALL_CALL, params, prepared("recall"))).rows.map((x) => x.r);
  const total = rows[0]?.total ?? 0;
  const hits = rows.map((r) => recallHit(r, keywords));
  await addConfirmedBefore(db, hits);
  await addSuccessors(db, readableScopes(caller), hits);
  return { hits, total, truncated: total > rows.length };
}

/**
 * An update makes a fact a draft again, and recall shows only the current
 * version: without this, an agent would see an unreviewed draft where the team
 * had a confirmed fact a day before. One more query, only when a
 * hit is a draft of a later version.
 */
async function addConfirmedBefore(db: Queryable, hits: RecallHit[]): Promise<void> {
  const drafts = hits.filter((h) => h.status === "draft" && h.version > 1);
  if (drafts.length === 0) return;
  const rows = (
    await db.query<{ scope: string; name: string; version: number; by: string; at: Date | string }>(PREVIOUS_CONFIRMATION, [
      drafts.map((h) => h.scope),
      drafts.map((h) => h.name),
    ])
  ).rows;
  for (const r of rows) {
    const hit = drafts.find((h) => h.scope === r.scope && h.name === r.name);
    if (hit) hit.confirmedBefore = { version: r.version, by: r.by, at: isoTime(r.at) };
  }
}

type RecallRow = SummaryRow & {
  body: string;
  /** am_fact_stale of the fact. */
  stale: boolean;
  exact_levels: Array<number | null> | null;
  near_levels: Array<number | null> | null;
  sentence_levels: Array<number | null> | null;
  /** For each sentence keyword (by its 1-based index), the 1-based indexes of the words the fact holds. */
  sentence_words: Record<string, number[]> | null;
  copy_scope: string | null;
  copy_name: string | null;
};

/**
 * One row of RECALL as a hit. Written out field by field, without object
 * spreads: spreading the summary into a larger object cost about 7 µs a hit
 * in V8 (85 µs for ten, against 17 µs written out), a tenth of a whole
 * recall's service time.
 */
function recallHit(r: RecallRow, keywords: RecallKeyword[]): RecallHit {
  // A keyword has a level in at most one of the two (near keywords matched nothing exactly).
  const matches: RecallMatch[] = [];
  for (let i = 0; i < keywords.length; i++) {
    const level = r.exact_levels?.[i] ?? r.near_levels?.[i] ?? r.sentence_levels?.[i] ?? null;
    if (level === null) continue;
    const match: RecallMatch = { keyword: keywords[i]!.keyword, in: LEVELS[level]!.in, how: LEVELS[level]!.how };
    const held = level >= 7 ? r.sentence_words?.[String(i + 1)] : undefined;
    if (held) match.words = held.map((j) => keywords[i]!.sentence!.words[j - 1]!);
    matches.push(match);
  }
  const statusAt = r.status_at ? isoTime(r.status_at) : null;
  const hit: RecallHit = {
    name: r.name,
    scope: r.scope,
    type: r.type,
    status: r.status,
    description: r.description,
    author: r.author,
    version: r.version,
    createdAt: isoTime(r.created_at),
    updatedAt: isoTime(r.updated_at),
    statusBy: r.status_by,
    statusAt,
    statusReason: r.status_reason,
    bodyChars: r.body_chars,
    body: r.body,
    bodyTruncated: r.body_chars > charCount(r.body),
    matchedIn: matches.some((m) => m.in === "summary") ? "summary" : "body",
    matches,
    stale: r.stale,
  };
  if (r.copy_scope !== null && r.copy_name !== null) hit.copyOf = { scope: r.copy_scope, name: r.copy_name };
  return hit;
}

function boundedLimit(limit: number | undefined, def: number, max: number): number {
  return checkWholeNumber("limit", limit, def, 1, max);
}
