// The pieces RECALL (recall-sql.ts) is built from: the texts each index
// covers, the per-keyword levels and score, the filters. Constants of the
// statement, never input; split out so that each file reads in one go.
import { READABLE } from "./sql.js";

export const HEAD_TEXT = `(f.name || E'\\n' || f.description)`;
// What substrings ("as written") and near matches (typos) are sought in: name,
// description and the first RECALL_NEAR_BODY_CHARS (1,000) characters of the
// body, never the whole body (docs/recall.md); words (any form) are sought in
// the whole body through search_body. Must match the expressions of the
// facts_exact_trgm (sql/000038) and facts_near_words (sql/000035) indexes
// exactly, or the planner cannot use them.
export const NEAR_TEXT = `(f.name || E'\\n' || f.description || E'\\n' || left(f.body, 1000))`;
export const EXACT_TEXT = NEAR_TEXT;
// The words of NEAR_TEXT as the facts_near_words index holds them (am_near_words:
// distinct lowercased runs of letters and digits of 4-40 characters).
export const NEAR_WORDS = `am_near_words${NEAR_TEXT}`;

// Status order for ranking: reviewed facts first, withdrawn ones last.
export const STATUS_RANK = `case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end`;

export const FILTERS = `
       ${READABLE("$4", "$5")}
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)`;

// Facts read per near keyword: $14 (RECALL_NEAR_MAX_FACTS) shared among the
// near keywords of the call, so the call reads at most $14 in all.
export const NEAR_PER_KEYWORD = `$14::int / (select greatest(count(*), 1) from kw k2 where k2.near)`;

/**
 * How well one keyword matches one fact, best first (docs/recall.md):
 * 1 exact substring in name/description, 2 its words (stemmed, any order, or
 * the quoted phrase) in name/description, 3 exact in the body, 4 words in the
 * body; near matches (typos): 5 similar in name/description, 6 in the body.
 * The words of a Chinese, Japanese or Korean keyword of several parts
 * (lower_parts, rules.ts) are its parts, each a substring of the field
 * anywhere: such text has no spaces between words, or particles attached to
 * them, so the parts are not full-text words.
 */
export const EXACT_LEVEL = `
  case when t.head like k.lower_pattern then 1
       when f.search_head @@ k.q then 2
       when k.lower_parts is not null and t.head like all(k.lower_parts) then 2
       when f.search_body @@ k.q then (case when t.body like k.lower_pattern then 3 else 4 end)
       when t.body like k.lower_pattern then 3
       when k.lower_parts is not null and t.body like all(k.lower_parts) then 4
  end`;

// The head and body lowercased once per candidate for EXACT_LEVEL: ILIKE is
// exactly lower(text) LIKE lower(pattern), and would lowercase the whole body
// again for every keyword. "offset 0" keeps the planner from inlining these
// expressions back into every use.
export const LOWERED = `cross join lateral (select lower(${HEAD_TEXT}) as head, lower(left(f.body, 1000)) as body offset 0) t`;
// Whether a text holds a near keyword k (docs/recall.md, "Near matches"): for
// each of its words of $12 characters or more, one of the word's corrections
// (near_fixes) among the text's words; each shorter word as written.
export const NEAR_HOLDS = (words: string, lowered: string) => `
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && ${words}, false)
                          else position(x.word in ${lowered}) = 0 end)`;
// A near keyword's level in a fact found by it: 5 when the name/description
// alone holds it, else 6 (the lookup found it in NEAR_TEXT).
export const NEAR_LEVEL = `case when ${NEAR_HOLDS(`am_near_words${HEAD_TEXT}`, `lower${HEAD_TEXT}`)} then 5 else 6 end`;
// Computed for each fact read, not tested before the count: the filters, and
// the words of the keyword the index condition did not cover (a fourth
// corrected word and beyond, the short words), only when it has such words.
export const NEAR_FOUND_KEEP = `(${FILTERS}
       and (not k.more or ${NEAR_HOLDS(NEAR_WORDS, `lower${NEAR_TEXT}`)}))`;

/**
 * A fact's relevance: per keyword 4 for name/description, 2 for the body, 1 or
 * 0.5 when only similar, summed over the keywords. Substring and word matches
 * in a field weigh the same (a fact saying "migrations" is as relevant to
 * "migration" as one saying "migration"), so that the lifecycle decides among
 * comparably relevant facts, and a fact matching more keywords ranks higher.
 * One lateral subquery per candidate gives both the levels and the score.
 */
export const SCORED = (level: string, keywords: string) => `
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, ${level} as level from ${keywords} k) x
      ) m`;
