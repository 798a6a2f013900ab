// Recall's statement (memory_recall, the console's search). Parameterized;
// the caller's readable scopes come in as ($4 all, $5 scopes) from the
// authenticated agent, as everywhere (sql.ts).
import { READABLE, SUMMARY_COLUMNS, SUMMARY_JOINS } from "./sql.js";

// Must match the expression of the facts_search_trgm index exactly, or the
// planner cannot use it. (The words, search_head and search_body, have their own index: 000007.)
const SEARCH_TEXT = `(f.name || E'\\n' || f.description || E'\\n' || f.body)`;
const HEAD_TEXT = `(f.name || E'\\n' || f.description)`;
// What near matches (typos) are sought in: name, description and the first
// RECALL_NEAR_BODY_CHARS (1,000) characters of the body, never the whole body
// (docs/recall.md, "Near matches: bounded work"). Must match the expression of
// the facts_near_trgm index (sql/000032) exactly.
const NEAR_TEXT = `(f.name || E'\\n' || f.description || E'\\n' || left(f.body, 1000))`;

// Status order for ranking: reviewed facts first, withdrawn ones last.
const STATUS_RANK = `case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end`;

const FILTERS = `
       ${READABLE("$4", "$5")}
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)`;

// The filters of a near candidate, computed rather than tested: the LIMIT of
// the near lookup then counts every fact it reads, including those a filter
// drops (a type or status filter that matches nothing must not make the
// lookup read every similar fact).
const NEAR_KEEP = `(${FILTERS})`;

// Facts read per near keyword: $14 (RECALL_NEAR_MAX_FACTS) shared among the
// near keywords of the call, so the call reads at most $14 in all.
const NEAR_PER_KEYWORD = `$14::int / (select greatest(count(*), 1) from kw k2 where k2.near)`;

/**
 * How well one keyword matches one fact, best first (docs/recall.md):
 * 1 exact substring in name/description, 2 its words (stemmed, any order, or
 * the quoted phrase) in name/description, 3 exact in the body, 4 words in the
 * body; near matches (typos): 5 similar in name/description, 6 in the body.
 */
const EXACT_LEVEL = `
  case when t.head like k.lower_pattern then 1
       when f.search_head @@ k.q then 2
       when f.search_body @@ k.q then (case when t.body like k.lower_pattern then 3 else 4 end)
       when t.body like k.lower_pattern then 3
  end`;

// The head and body lowercased once per candidate for EXACT_LEVEL: ILIKE is
// exactly lower(text) LIKE lower(pattern), and would lowercase the whole body
// again for every keyword. "offset 0" keeps the planner from inlining these
// expressions back into every use.
const LOWERED = `cross join lateral (select lower(${HEAD_TEXT}) as head, lower(f.body) as body offset 0) t`;
// A near keyword's level in a fact found by it: the index condition (%>) already
// holds the keyword similar to NEAR_TEXT; 5 when the name/description alone is.
const NEAR_LEVEL = `case when word_similarity(k.text, ${HEAD_TEXT}) >= $11::real then 5 else 6 end`;

/**
 * A fact's relevance: per keyword 4 for name/description, 2 for the body, 1 or
 * 0.5 when only similar, summed over the keywords. Substring and word matches
 * in a field weigh the same (a fact saying "migrations" is as relevant to
 * "migration" as one saying "migration"), so that the lifecycle decides among
 * comparably relevant facts, and a fact matching more keywords ranks higher.
 * One lateral subquery per candidate gives both the levels and the score.
 */
const SCORED = (level: string, keywords: string) => `
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, ${level} as level from ${keywords} k) x
      ) m`;

/**
 * recall in one round trip.
 * - `kw0` turns each keyword into a full-text query (`english` and `simple`,
 *   ORed; its words ANDed in any order, or a phrase when quoted).
 * - `exact` finds the facts that contain a keyword (trigram index) or its
 *   words (tsvector index), in a BitmapOr filtered by scope in the same scan,
 *   with each keyword's level and the score. The trigram index is asked for
 *   $13, each keyword's pattern without its commonest pieces (a superset,
 *   index-pattern.ts); the levels, exact per candidate, drop the candidates
 *   that contain no keyword after all (score 0).
 * - `kw` marks as `near` the unquoted keywords of $12 characters or more
 *   that no such fact matched: only those are looked up by trigram word
 *   similarity (typos), so a keyword found as written never pulls in
 *   look-alikes ("100%" does not bring "1000"), and a short one never reads
 *   the posting lists of the most common trigrams (a typo in three letters
 *   is not told apart from another word anyway).
 * - `near_found` looks each of those up through facts_near_trgm: at most $14
 *   facts in all, shared among them (whatever the filters, which are computed,
 *   not tested),
 *   and only over the name, description and first 1,000 characters of the
 *   body, so a recall's similarity work is bounded by constants however many
 *   and however long the facts are (security audit: ten typo keywords over
 *   200 facts of 16,000 characters ran past the statement timeout). The
 *   threshold is set for this statement's transaction only, in `kw`, with the
 *   keyword row that each index scan waits for, so it is in force before the
 *   scan starts (`%>` reads it there).
 * - `near` gathers each fact's near levels, one per keyword.
 * - `hits` merges both (a near keyword has no exact level anywhere, the others
 *   no near level: scores add up), counts every match (window), ranks and
 *   cuts; only the rows kept are joined back for their (shortened) bodies and
 *   names, so long bodies of cut rows are never copied. The caller merges the
 *   two level arrays of the rows kept.
 * $1 patterns, $2 texts, $3 phrase flags (one per keyword), $4/$5 readable
 * scopes, $6 type, $7 status, $8 scope, $9 limit, $10 body chars,
 * $11 near-match threshold, $12 shortest keyword looked up for near matches,
 * $13 index patterns (one per keyword), $14 most facts the near lookups read in all.
 *
 * The service runs it through am_recall (RECALL_CALL), which holds this very
 * text; test/facts/recall-plan.test.ts fails when the two differ.
 */
export const RECALL = `
  with kw0 as materialized (
    select k.i::int as i, k.text, k.pattern, lower(k.pattern) as lower_pattern, k.phrase,
           case when k.phrase then phraseto_tsquery('english', k.text) || phraseto_tsquery('simple', k.text)
                else plainto_tsquery('english', k.text) || plainto_tsquery('simple', k.text) end as q
      from unnest($1::text[], $2::text[], $3::boolean[]) with ordinality as k(pattern, text, phrase, i)
  ), exact as materialized (
    select f.id, ${STATUS_RANK} as status_rank, f.updated_at, m.levels, m.score
      from facts f
      ${LOWERED}
      ${SCORED(EXACT_LEVEL, "kw0")}
     where (${SEARCH_TEXT} ilike any($13::text[]) or f.search_head @@ (select am_tsquery_or(q) from kw0) or f.search_body @@ (select am_tsquery_or(q) from kw0))
       and ${FILTERS}
       and m.score > 0
  ), kw as materialized (
    select k.*, not k.phrase and char_length(k.text) >= $12::int
                and not exists (select 1 from exact e where e.levels[k.i] is not null)
                -- The threshold, for this statement's transaction only: computed with the
                -- keyword's row, before any near lookup can read it (a condition beside the
                -- lookup would be a join filter, tested after it).
                and set_config('pg_trgm.word_similarity_threshold', $11::real::text, true) is not null as near
      from kw0 k
  ), near_found as materialized (
    select c.id, k.i, c.level
      from kw k
      cross join lateral (
        -- One branch runs (its condition is on parameters only): the scope is part
        -- of the index condition whenever the caller reads some scopes or asked
        -- for one, so facts it cannot read are never read here.
        (select f.id, ${NEAR_LEVEL} as level, ${NEAR_KEEP} as keep
           from facts f
          where $4::boolean and $8::text is null and ${NEAR_TEXT} %> k.text
          limit ${NEAR_PER_KEYWORD})
        union all
        (select f.id, ${NEAR_LEVEL} as level, ${NEAR_KEEP} as keep
           from facts f
          where not ($4::boolean and $8::text is null)
            and f.scope = any(case when $8::text is null then $5::text[] else array[$8::text] end)
            and ${NEAR_TEXT} %> k.text
          limit ${NEAR_PER_KEYWORD})
      ) c
     where k.near and c.keep
  ), near as materialized (
    select f.id, ${STATUS_RANK} as status_rank, f.updated_at,
           array(select n.levels[array_position(n.keywords, k.i)] from kw k order by k.i) as levels,
           n.score
      from (select p.id, array_agg(p.i) as keywords, array_agg(p.level) as levels,
                   sum(case p.level when 5 then 1 else 0.5 end) as score
              from near_found p group by p.id) n
      join facts f on f.id = n.id
  ), hits as (
    select coalesce(e.id, n.id) as id,
           coalesce(e.status_rank, n.status_rank) as status_rank,
           coalesce(e.updated_at, n.updated_at) as updated_at,
           coalesce(e.score, 0) + coalesce(n.score, 0) as score,
           e.levels as exact_levels, n.levels as near_levels,
           count(*) over () as total
      from exact e full join near n on n.id = e.id
     order by score desc, status_rank, updated_at desc, id desc
     limit $9::int
  )
  select ${SUMMARY_COLUMNS},
         left(f.body, $10::int) as body,
         h.exact_levels, h.near_levels, h.total
    from hits h
    join facts f on f.id = h.id
    ${SUMMARY_JOINS}
   order by h.score desc, h.status_rank, h.updated_at desc, h.id desc`;

/**
 * How the service runs RECALL: through am_recall (sql/000017_recall_plan.sql),
 * a PL/pgSQL function whose body is RECALL itself. PL/pgSQL keeps the plan of
 * a statement for the life of the connection, and the function forces that
 * plan to be the generic one (plan_cache_mode) and never to scan the whole
 * table (enable_seqscan off). Planning this statement took longer than
 * running it for a selective keyword (about 1-3 ms against 0.3-2.5 ms at
 * 100,000 facts), and with few facts the planner chose to compute the word
 * similarity of every fact for a typo (80-180 ms at 1,000 facts) instead of
 * asking the trigram index. Each row comes back as one JSON object with
 * RECALL's columns, in RECALL's order. Same parameters as RECALL.
 */
export const RECALL_CALL = `
  select r from am_recall($1::text[], $2::text[], $3::boolean[], $4::boolean, $5::text[], $6::text, $7::text, $8::text,
                          $9::int, $10::int, $11::real, $12::int, $13::text[], $14::int) as r`;
