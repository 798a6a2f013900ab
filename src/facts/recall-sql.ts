// Recall's statement (memory_recall, the console's search). Parameterized;
// the caller's readable scopes come in as ($4 all, $5 scopes) from the
// authenticated agent, as everywhere (sql.ts).
import { SUMMARY_COLUMNS, SUMMARY_JOINS } from "./sql.js";
import { EXACT_LEVEL, EXACT_TEXT, FILTERS, LOWERED, NEAR_FOUND_KEEP, NEAR_LEVEL, NEAR_PER_KEYWORD, NEAR_WORDS, SCORED, STATUS_RANK } from "./recall-sql-parts.js";

/**
 * recall in one round trip.
 * - `kw0` turns each keyword into a full-text query (`english` and `simple`,
 *   ORed; its words ANDed in any order, or a phrase when quoted).
 * - `exact` finds the facts that contain a keyword (trigram index over the
 *   name, description and first 1,000 characters of the body, looked up one
 *   readable scope at a time) or its words (tsvector indexes, whole body),
 *   with each keyword's level and the score. The trigram index is asked for
 *   $13, each keyword's pattern without its commonest pieces (a superset,
 *   index-pattern.ts; for a CJK keyword of several parts, its longest part's,
 *   rules.ts); the levels, exact per candidate, drop the candidates that
 *   contain no keyword after all (score 0).
 * - `kw` marks as `near` the unquoted keywords of $12 characters or more
 *   that no such fact matched: only those are looked up as typos, so a
 *   keyword found as written never pulls in look-alikes ("100%" does not
 *   bring "1000").
 * - `near_fixes` splits each into words and corrects each word of $12
 *   characters or more: the vocabulary words (fact_words) of the readable
 *   scopes one edit away from it or from its plural or singular, found by
 *   symmetric deletes, at most $11 read per word.
 * - `near_kw` makes each keyword's index condition from its corrections.
 * - `near_found` looks each keyword up through facts_near_words (each fact's
 *   words, exactly): at most $14 facts in all, shared among them (whatever the
 *   filters, which are computed, not tested), over the name, description and
 *   first 1,000 characters of the body. Every index read here is exact, so
 *   each LIMIT counts every row read (docs/recall.md, "Near matches: bounded
 *   work": the trigram lookup before counted only rows its recheck kept).
 * - `near` gathers each fact's near levels, one per keyword.
 * - `hits` merges both (a near keyword has no exact level anywhere, the others
 *   no near level: scores add up), counts every match (window), ranks and
 *   cuts; only the rows kept are joined back for their (shortened) bodies and
 *   names, so long bodies of cut rows are never copied. The caller merges the
 *   two level arrays of the rows kept.
 * $1 patterns, $2 texts, $3 phrase flags (one per keyword), $4/$5 readable
 * scopes, $6 type, $7 status, $8 scope, $9 limit, $10 body chars,
 * $11 vocabulary words read per keyword word (RECALL_NEAR_WORD_CANDIDATES),
 * $12 shortest keyword looked up for near matches, and shortest word corrected,
 * $13 index patterns (one per keyword), $14 most facts the near lookups read in all,
 * $15 the parts of each CJK keyword of several parts (rules.ts RecallKeyword.parts),
 * joined by line breaks, or null.
 *
 * The service runs it through am_recall (RECALL_CALL), which holds this very
 * text; test/facts/recall-plan.test.ts fails when the two differ.
 */
export const RECALL = `
  with kw0 as materialized (
    select k.i::int as i, k.text, k.pattern, lower(k.pattern) as lower_pattern, k.phrase,
           case when k.phrase then phraseto_tsquery('english', k.text) || phraseto_tsquery('simple', k.text)
                else plainto_tsquery('english', k.text) || plainto_tsquery('simple', k.text) end as q,
           string_to_array(lower(k.parts), E'\\n') as lower_parts
      from unnest($1::text[], $2::text[], $3::boolean[], $15::text[]) with ordinality as k(pattern, text, phrase, parts, i)
  ), exact as materialized (
    select f.id, ${STATUS_RANK} as status_rank, f.updated_at, m.levels, m.score
      from facts f
      ${LOWERED}
      ${SCORED(EXACT_LEVEL, "kw0")}
     where (f.id = any(array(
              -- Substrings through the trigram index, which leads with the
              -- scope: a caller that reads some scopes, or asked for one, looks
              -- up each keyword's pattern in one scope after another (one
              -- branch runs; its condition is on parameters only), so facts it
              -- cannot read are never proposed, nor rechecked; the recheck
              -- reads at most the first 1,000 characters of a body. (With
              -- "ilike any($13)" the generic plan looked up the scope alone and
              -- filtered every fact of it; a pattern from a row is looked up
              -- with the scope, and OFFSET 0 keeps each lookup apart.) Their
              -- ids join the words' candidates (tsvector indexes, exact) in one
              -- bitmap scan by the primary key: one pass over the heap for
              -- both (sql/000041; joining each candidate by its key instead
              -- made a recall of 1,667 hits 20 -> 39 ms).
              (select f.id from facts f
                where $4::boolean and $8::text is null and ${EXACT_TEXT} ilike any($13::text[]))
              union all
              (select f.id
                 from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
                 cross join unnest($13::text[]) as p(pattern)
                 cross join lateral (select f.id from facts f where f.scope = s.scope and ${EXACT_TEXT} ilike p.pattern offset 0) f
                where not ($4::boolean and $8::text is null))))
            or f.search_head @@ (select am_tsquery_or(q) from kw0) or f.search_body @@ (select am_tsquery_or(q) from kw0))
       and ${FILTERS}
       and m.score > 0
  ), kw as materialized (
    select k.*, not k.phrase and char_length(k.text) >= $12::int
                and not exists (select 1 from exact e where e.levels[k.i] is not null) as near
      from kw0 k
  ), near_fixes as materialized (
    -- Each word of a near keyword (lowercased runs of letters and digits, as in
    -- am_near_words); each of $12 characters or more gets its corrections: the
    -- vocabulary's words (fact_words) one edit away (insert, delete, substitute,
    -- swap two adjacent letters) from the word or from one of its plural or
    -- singular forms (am_word_forms: "migraton" is two edits from "migrations",
    -- one from "migratons"). A word and its one-letter deletes meet a vocabulary
    -- word's (symmetric delete) through the exact index fact_words_deletes: first
    -- the word's own deletes, then its forms' (am_forms_deletes), so the word's
    -- own corrections keep their slots; at most $11 candidates read per word in
    -- all, before the edit distance is checked (each against what found it). One
    -- branch runs; a caller of some scopes looks up one scope after another, as
    -- in near_found.
    select k.i, w.n, w.word, char_length(w.word) >= $12::int as corrected,
           row_number() over (partition by k.i order by char_length(w.word) >= $12::int desc, char_length(w.word) desc, w.n) as rank,
           (select array_agg(distinct c.word) filter (where c.near)
              from ((select v.word, v.near
                       from ((select v.word, am_edit1(v.word, w.word) as near from fact_words v
                               where v.deletes && am_word_deletes(w.word)
                               limit $11::int)
                             union all
                             (select v.word, am_edit1_any(v.word, w.forms) as near from fact_words v
                               where v.deletes && am_forms_deletes(w.forms)
                               limit $11::int)) v
                      where $4::boolean and $8::text is null and char_length(w.word) >= $12::int
                      limit $11::int)
                    union all
                    (select v.word, v.near
                       from ((select v.word, am_edit1(v.word, w.word) as near
                                from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
                                cross join lateral (
                                  select v.word from fact_words v
                                   where v.scope = s.scope and v.deletes && am_word_deletes(w.word)
                                   limit $11::int) v)
                             union all
                             (select v.word, am_edit1_any(v.word, w.forms) as near
                                from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
                                cross join lateral (
                                  select v.word from fact_words v
                                   where v.scope = s.scope and v.deletes && am_forms_deletes(w.forms)
                                   limit $11::int) v)) v
                      where not ($4::boolean and $8::text is null) and char_length(w.word) >= $12::int
                      limit $11::int)) c) as fixes
      from kw k
      -- The forms computed once per word ("offset 0" keeps the planner from
      -- copying the call into each use).
      cross join lateral (
        select x.word, x.n, am_word_forms(x.word) as forms
          from regexp_split_to_table(lower(k.text), '[^[:alnum:]]+') with ordinality as x(word, n)
         offset 0) w
     where k.near and w.word <> ''
  ), near_kw as materialized (
    -- The index condition of a near keyword: its (up to) three longest corrected
    -- words each among a fact's words (a missing second or third repeats the
    -- first); "more" when the keyword has other words, checked on each fact read.
    -- None when a corrected word has no correction.
    select k.i,
           (select x.fixes from near_fixes x where x.i = k.i and x.rank = 1) as fix1,
           coalesce((select x.fixes from near_fixes x where x.i = k.i and x.rank = 2 and x.corrected),
                    (select x.fixes from near_fixes x where x.i = k.i and x.rank = 1)) as fix2,
           coalesce((select x.fixes from near_fixes x where x.i = k.i and x.rank = 3 and x.corrected),
                    (select x.fixes from near_fixes x where x.i = k.i and x.rank = 1)) as fix3,
           exists (select 1 from near_fixes x where x.i = k.i and (x.rank > 3 or not x.corrected)) as more
      from kw k
     where k.near
       and exists (select 1 from near_fixes x where x.i = k.i and x.corrected)
       and not exists (select 1 from near_fixes x where x.i = k.i and x.corrected and x.fixes is null)
  ), near_found as materialized (
    select c.id, k.i, c.level
      from near_kw k
      cross join lateral (
        -- One branch runs (its condition is on parameters only). A caller that
        -- reads some scopes, or asked for one, looks up one scope after another
        -- (an equality in the index condition; the index cannot take a list),
        -- so facts it cannot read are never read here, and the outer LIMIT stops
        -- the lookups once enough facts are read. The index (facts_near_words)
        -- holds each fact's words exactly: no row it gives is rechecked away, so
        -- each LIMIT counts every fact read.
        (select f.id, ${NEAR_LEVEL} as level, ${NEAR_FOUND_KEEP} as keep
           from facts f
          where $4::boolean and $8::text is null
            and ${NEAR_WORDS} && k.fix1 and ${NEAR_WORDS} && k.fix2 and ${NEAR_WORDS} && k.fix3
          limit ${NEAR_PER_KEYWORD})
        union all
        (select f.id, ${NEAR_LEVEL} as level, ${NEAR_FOUND_KEEP} as keep
           from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
           cross join lateral (
             select f.* from facts f
              where f.scope = s.scope
                and ${NEAR_WORDS} && k.fix1 and ${NEAR_WORDS} && k.fix2 and ${NEAR_WORDS} && k.fix3
              limit ${NEAR_PER_KEYWORD}) f
          where not ($4::boolean and $8::text is null)
          limit ${NEAR_PER_KEYWORD})
      ) c
     where c.keep
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
 * table (enable_seqscan off), and never JIT-compiles it (jit off: the generic
 * plan's estimates passed the thresholds, and compiling took seconds), nor
 * memoizes per candidate (enable_memoize off, sql/000041). Planning this statement took longer than
 * running it for a selective keyword (about 1-3 ms against 0.3-2.5 ms at
 * 100,000 facts), and with few facts the planner chose to compute the word
 * similarity of every fact for a typo (80-180 ms at 1,000 facts) instead of
 * asking the trigram index. Each row comes back as one JSON object with
 * RECALL's columns, in RECALL's order. Same parameters as RECALL.
 */
export const RECALL_CALL = `
  select r from am_recall($1::text[], $2::text[], $3::boolean[], $4::boolean, $5::text[], $6::text, $7::text, $8::text,
                          $9::int, $10::int, $11::int, $12::int, $13::text[], $14::int, $15::text[]) as r`;
