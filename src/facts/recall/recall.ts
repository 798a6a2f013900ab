// Recall: the facts that match an agent's keywords, best first, in one query;
// the caller's readable scopes filter in SQL.
import type { Caller } from "../../auth/caller.js";
import { readableScopes } from "../../auth/scopes.js";
import type { Database, Queryable } from "../../db/core/database.js";
import { type FactSummary, isoTime, type SummaryRow } from "../model.js";
import { charCount, type FactStatus, type FactType, parseKeywords, RECALL_NEAR_MAX_FACTS, RECALL_NEAR_MIN_CHARS, RECALL_NEAR_WORD_CANDIDATES, RECALL_SENTENCE_WORD_FACTS, RECALL_SHORT_WORD_FACTS, type RecallKeyword, STALE_AFTER_DAYS_DEFAULT } from "../rules.js";
import { wordsQuery } from "../cjk-words.js";
import { PREVIOUS_CONFIRMATION, RECALL_CALL, RECALL_ROWS } from "./recall-sql.js";
import type { Embeddings, QueryVector } from "../../app-deps.js";
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
  /** Where recall by meaning is set up: found by the keywords' words, by meaning alone, or both. */
  matchedBy?: "words" | "meaning" | "both";
  /** Found by meaning: the cosine similarity of its vector and the keywords' (0-1, two decimals). */
  similarity?: number;
}

export interface ReadOptions {
  /** Days after which a confirmed fact counts as stale (default STALE_AFTER_DAYS_DEFAULT). */
  staleAfterDays?: number;
  /** Recall by meaning (EMBEDDINGS_URL): a second leg beside the words. */
  embeddings?: Embeddings | undefined;
}

export interface RecallResult {
  hits: RecallHit[];
  /** How many facts matched in all (before the limit). */
  total: number;
  /** True when more facts matched than were returned. */
  truncated: boolean;
  /** Where recall by meaning is set up: how long its leg took, and why it was left out when it was (the answer is by words then). */
  semantic?: { seconds: number; unavailable?: string };
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

export async function recallFacts(db: Database, caller: Caller, input: RecallInput, options: ReadOptions = {}): Promise<RecallResult> {
  const staleAfter = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const keywords = parseKeywords(input.keywords);
  const scope = optionalReadableScope(caller, input.scope);
  const limit = boundedLimit(input.limit, RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT);
  const readable = readableScopes(caller);
  // The keywords' embedding is asked for first: the endpoint works while the words are looked up.
  const started = performance.now();
  const query = options.embeddings?.embedQuery(keywords.map((k) => k.keyword).join("; "));
  const params = recallParams(keywords, readable, { type: input.type, status: input.status, scope }, limit, staleAfter);
  // One JSON object per row (am_recall returns RECALL's rows as JSON): timestamps come as strings, which toSummary reads too.
  const rows = (await db.query<{ r: RecallRow & { total: number } }>(RECALL_CALL, params, prepared("recall"))).rows.map((x) => x.r);
  const total = rows[0]?.total ?? 0;
  let result: RecallResult = { hits: rows.map((r) => recallHit(r, keywords)), total, truncated: total > rows.length };
  if (query && options.embeddings) {
    const meaning = { embeddings: options.embeddings, query, started, limit, staleAfter, filters: { readable, type: input.type ?? null, status: input.status ?? null, scope: scope ?? null } };
    result = await withMeaning(db, rows.map((r) => String(r.id)), result, meaning);
  }
  await addConfirmedBefore(db, result.hits);
  await addSuccessors(db, readable, result.hits);
  return result;
}

interface MeaningLeg {
  embeddings: Embeddings;
  query: Promise<QueryVector>;
  /** When the leg began (performance.now()). */
  started: number;
  limit: number;
  staleAfter: number;
  filters: { readable: { all: boolean; scopes: string[] }; type: string | null; status: string | null; scope: string | null };
}

/** k of reciprocal rank fusion (Cormack et al.): a rank r counts 1 / (k + r). */
const RRF_K = 60;

/**
 * Recall's second leg: the facts nearest the keywords' embedding, in the
 * caller's readable facts only, fused with the words' hits by reciprocal
 * rank. A fact matched by its words as written or by their forms (exact,
 * stemmed) always ranks above one found only nearly (typo, most words) or by
 * meaning: a neighbour never pushes a word match down. Without the keywords'
 * vector within the budget the words' hits come alone, and the answer says why.
 */
async function withMeaning(db: Database, lexicalIds: string[], words: RecallResult, leg: MeaningLeg): Promise<RecallResult> {
  const query = await leg.query;
  for (const hit of words.hits) hit.matchedBy = "words";
  if ("unavailable" in query) return { ...words, semantic: { seconds: (performance.now() - leg.started) / 1000, unavailable: query.unavailable } };
  // What is left of the budget bounds the search too: the whole leg never waits past it.
  const remainingMs = Math.max(50, leg.embeddings.recallBudgetMs - (performance.now() - leg.started));
  let found: Array<{ id: string; similarity: number }>;
  try {
    found = await leg.embeddings.nearest(db, query.vector, leg.filters, leg.limit, remainingMs);
  } catch (error) {
    return { ...words, semantic: { seconds: (performance.now() - leg.started) / 1000, unavailable: leg.embeddings.searchFailed(error, remainingMs) } };
  }
  const neighbours = found.filter((n) => n.similarity >= leg.embeddings.minSimilarity);
  const semanticRank = new Map(neighbours.map((n, i) => [n.id, { rank: i + 1, similarity: n.similarity }]));
  const lexicalIndex = new Map(lexicalIds.map((id, i) => [id, i]));
  const meaningOnly = neighbours.filter((n) => !lexicalIndex.has(n.id));
  const meaningRows = meaningOnly.length === 0 ? [] : (await db.query<RecallRow>(RECALL_ROWS, [meaningOnly.map((n) => n.id), leg.staleAfter])).rows;
  const candidates = [
    ...words.hits.map((hit, i) => ({ hit, id: lexicalIds[i]!, lexicalRank: i + 1 })),
    ...meaningRows.map((r) => ({ hit: recallHit(r, []), id: r.id, lexicalRank: undefined })),
  ].map((c) => {
    const semantic = semanticRank.get(c.id);
    if (semantic) {
      c.hit.matchedBy = c.lexicalRank === undefined ? "meaning" : "both";
      c.hit.similarity = Math.round(semantic.similarity * 100) / 100;
    }
    const score = (c.lexicalRank ? 1 / (RRF_K + c.lexicalRank) : 0) + (semantic ? 1 / (RRF_K + semantic.rank) : 0);
    const byWords = c.hit.matches.some((m) => m.how === "exact" || m.how === "stemmed");
    return { ...c, score, tier: byWords ? 0 : 1 };
  });
  candidates.sort((a, b) => a.tier - b.tier || b.score - a.score || (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity));
  const hits = candidates.slice(0, leg.limit).map((c) => c.hit);
  const total = words.total + meaningRows.length;
  return { hits, total, truncated: total > hits.length, semantic: { seconds: (performance.now() - leg.started) / 1000 } };
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
  /** The fact's id (as text: a bigint). */
  id: string;
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
