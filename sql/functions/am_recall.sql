-- memory_recall (and the console's fact search) in one statement, one round trip.
-- The caller's readable scopes come in as ($4 all, $5 scopes), from the
-- authenticated agent.
-- - `kw0` turns each keyword into a full-text query (`english` and `simple`,
--   ORed; its words ANDed in any order, or a phrase when quoted).
-- - `exact` finds the facts that contain a keyword (trigram index over the
--   name, description and first 1,000 characters of the body, looked up one
--   readable scope at a time) or its words (tsvector indexes, whole body),
--   or, for a CJK keyword, its words (facts.search_cjk, made by the service),
--   with each keyword's level and the score. The trigram index is asked for
--   $13, each keyword's pattern (for a CJK keyword of several parts, its longest
--   part's: src/facts/rules.ts), or, when that is one or two CJK characters
--   (no trigram), the facts' pieces (`short_pieces`: facts_cjk_grams,
--   am_cjk_grams) and its words (`short_words`), at most $20 readable facts
--   in all; the levels, exact per candidate, drop the candidates that contain
--   no keyword after all (score 0).
-- - `kw` marks as `near` the unquoted keywords of $12 characters or more
--   that no such fact matched: only those are looked up as typos, so a
--   keyword found as written never pulls in look-alikes ("100%" does not
--   bring "1000").
-- - `near_fixes` splits each into words and corrects each word of $12
--   characters or more: the vocabulary words (fact_words) of the readable
--   scopes one edit away from it or from its plural or singular, found by
--   symmetric deletes, at most $11 read per word.
-- - `near_kw` makes each keyword's index condition from its corrections.
-- - `near_found` looks each keyword up through facts_near_words (each fact's
--   words, exactly): at most $14 facts in all, shared among them (whatever the
--   filters, which are computed, not tested), over the name, description and
--   first 1,000 characters of the body. Every index read here is exact, so
--   each LIMIT counts every row read (docs/recall.md, "Near matches: bounded
--   work"; a trigram lookup's LIMIT would count only the rows its recheck
--   kept).
-- - `near` gathers each fact's near levels, one per keyword.
-- - `hits` merges both (a near keyword has no exact level anywhere, the others
--   no near level: scores add up), counts every match (window), ranks and
--   cuts; only the rows kept are joined back for their (shortened) bodies and
--   names, so long bodies of cut rows are never copied. The caller merges the
--   two level arrays of the rows kept. A draft kept also names the confirmed
--   fact it was stored as a near-copy of (fact_copies), if any.
-- $1 patterns, $2 texts, $3 phrase flags (one per keyword), $4/$5 readable
-- scopes, $6 type, $7 status, $8 scope, $9 limit, $10 STALE_AFTER_DAYS (each hit
-- says whether it is stale, am_fact_stale),
-- $11 vocabulary words read per keyword word (RECALL_NEAR_WORD_CANDIDATES),
-- $12 shortest keyword looked up for near matches, and shortest word corrected,
-- $13 index patterns (one per keyword), $14 most facts the near lookups read in all,
-- $15 the parts of each CJK keyword of several parts (rules.ts RecallKeyword.parts),
-- joined by line breaks, or null; $16 the words of each CJK keyword
-- (RecallKeyword.words, cjk-words.ts) as the text of a tsquery of them all
-- ANDed, each a quoted lexeme, or null; $17 the words of each keyword written
-- as a sentence or question (RecallKeyword.sentence), joined by line breaks, or
-- null; $18 for such a keyword with CJK text, each word's lexeme query (as the
-- service's words, facts.search_cjk), joined alike, or null; $19 most facts
-- read per word of a sentence (RECALL_SENTENCE_WORD_FACTS); $20 most facts
-- read per keyword of one or two CJK characters, by its pieces and its words
-- (RECALL_SHORT_WORD_FACTS). Each hit carries the
-- part of its body that recall searches (am_fact_search_body): what an answer shows.
-- - `sentence_*`: a sentence keyword is not matched whole but by its content
--   words (stop words give no english query and do not count): a fact matches
--   when it holds most of them (all of one or two, at least half of more),
--   scored by how many it holds and how rare they are (a word weighs more the
--   fewer facts hold it, counted up to $19, the facts each word's lookup
--   reads), name and description counting double; the words it holds are
--   returned.
--
-- Settings: one generic plan per connection (planning cost more than a selective
-- recall runs); no sequential scan, whatever the statistics of a scope say; no
-- memoize (it cached each candidate's lowercased text under a key of its whole
-- text, every one a miss); no JIT (compiling a plan that merely looks expensive).
create or replace function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, integer, integer, text[], integer, text[], text[], text[], text[], integer, integer)
  returns setof json
  language plpgsql
  set search_path from current
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
  set enable_memoize = off
  set jit = off
  as $recall$
begin
  return query select to_json(r) from (

  with kw0 as materialized (
    select k.i::int as i, k.text, k.pattern, lower(k.pattern) as lower_pattern, k.phrase,
           case when k.sentence is not null then null::tsquery
                when k.phrase then phraseto_tsquery('english', k.text) || phraseto_tsquery('simple', k.text)
                else plainto_tsquery('english', k.text) || plainto_tsquery('simple', k.text) end as q,
           string_to_array(lower(k.parts), E'\n') as lower_parts,
           k.words::tsquery as cjk_q,
           k.sentence, k.lexemes, k.index_pattern,
           -- A keyword whose index pattern is one or two Chinese, Japanese or
           -- Korean characters (am_cjk_grams decides; such characters need no
           -- escape, so the pattern is they between %…%): looked up among the
           -- facts' pieces (facts_cjk_grams) instead of the trigram index.
           case when char_length(k.index_pattern) <= 4
                 and substr(k.index_pattern, 2, char_length(k.index_pattern) - 2) = any(am_cjk_grams(substr(k.index_pattern, 2, char_length(k.index_pattern) - 2)))
                then substr(k.index_pattern, 2, char_length(k.index_pattern) - 2) end as gram
      from unnest($1::text[], $2::text[], $3::boolean[], $15::text[], $16::text[], $17::text[], $18::text[], $13::text[])
           with ordinality as k(pattern, text, phrase, parts, words, sentence, lexemes, index_pattern, i)

  ), short_pieces as materialized (
    -- A keyword of one or two CJK characters: at most $20 readable facts
    -- holding it as a piece (facts_cjk_grams, exact: a LIMIT counts every row
    -- read), one readable scope after another as the trigram lookups below (one
    -- branch runs).
    select k.i, g.id from kw0 k cross join lateral (
       (select f.id from facts f
         where $4::boolean and $8::text is null
           and am_cjk_grams(am_fact_search_text(f.name, f.description, f.body)) @> array[k.gram]
           and ($6::text is null or f.type = $6::text) and ($7::text is null or f.status = $7::text)
         limit $20::int)
       union all
       (select f.id
          from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
          cross join lateral (
            select f.id from facts f
             where f.scope = s.scope and am_cjk_grams(am_fact_search_text(f.name, f.description, f.body)) @> array[k.gram]
               and ($6::text is null or f.type = $6::text) and ($7::text is null or f.status = $7::text)
             limit $20::int) f
         where not ($4::boolean and $8::text is null)
         limit $20::int)) g
     where k.gram is not null
  ), short_words as materialized (
    -- And as a word anywhere in the body (the word indexes), as many more as
    -- its pieces left of $20: none once they reached it. Its matches past
    -- those are not sought, so a common one costs what a rare one costs.
    select k.i, w.id from kw0 k cross join lateral (
       select f.id from facts f
        where (f.search_cjk @@ k.cjk_q or f.search_head @@ k.q or f.search_body @@ k.q)
          and am_in_scopes(f.scope, $4::boolean, $5::text[])
          and ($6::text is null or f.type = $6::text) and ($7::text is null or f.status = $7::text)
          and ($8::text is null or f.scope = $8::text)
        limit greatest($20::int - (select count(*) from short_pieces p where p.i = k.i), 0)) w
     where k.gram is not null
  ), exact as materialized (
    select f.id, case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank, f.updated_at, m.levels, m.score
      from facts f
      cross join lateral (select lower(am_fact_search_head(f.name, f.description)) as head, lower(am_fact_search_body(f.body)) as body offset 0) t
      
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, 
  case when t.head like k.lower_pattern then 1
       when f.search_head @@ k.q then 2
       when k.lower_parts is not null and t.head like all(k.lower_parts) then 2
       when f.search_cjk_head @@ k.cjk_q then 2
       when f.search_body @@ k.q then (case when t.body like k.lower_pattern then 3 else 4 end)
       when t.body like k.lower_pattern then 3
       when k.lower_parts is not null and t.body like all(k.lower_parts) then 4
       when f.search_cjk @@ k.cjk_q then 4
  end as level from kw0 k) x
      ) m
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
              -- both (joining each candidate by its key instead reads the heap
              -- once per candidate).
              (select f.id from facts f
                where $4::boolean and $8::text is null
                  and am_fact_search_text(f.name, f.description, f.body) ilike any(array(select k.index_pattern from kw0 k where k.gram is null)))
              union all
              (select f.id
                 from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
                 cross join (select k.index_pattern as pattern from kw0 k where k.gram is null) p
                 cross join lateral (select f.id from facts f where f.scope = s.scope and am_fact_search_text(f.name, f.description, f.body) ilike p.pattern offset 0) f
                where not ($4::boolean and $8::text is null))
              union all
              (select p.id from short_pieces p)
              union all
              (select w.id from short_words w)))
            -- The other keywords' words, through the word indexes.
            or f.search_head @@ (select am_tsquery_or(q) from kw0 where gram is null) or f.search_body @@ (select am_tsquery_or(q) from kw0 where gram is null)
            or f.search_cjk @@ (select am_tsquery_or(cjk_q) from kw0 where gram is null))
       and 
       am_in_scopes(f.scope, $4::boolean, $5::text[])
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and m.score > 0
  ), kw as materialized (
    select k.*, not k.phrase and k.sentence is null and char_length(k.text) >= $12::int
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
        (select f.id, case when 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(am_fact_search_head(f.name, f.description)), false)
                          else position(x.word in lower(am_fact_search_head(f.name, f.description))) = 0 end) then 5 else 6 end as level, (
       am_in_scopes(f.scope, $4::boolean, $5::text[])
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and (not k.more or 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(am_fact_search_text(f.name, f.description, f.body)), false)
                          else position(x.word in lower(am_fact_search_text(f.name, f.description, f.body))) = 0 end))) as keep
           from facts f
          where $4::boolean and $8::text is null
            and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix1 and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix2 and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix3
          limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near))
        union all
        (select f.id, case when 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(am_fact_search_head(f.name, f.description)), false)
                          else position(x.word in lower(am_fact_search_head(f.name, f.description))) = 0 end) then 5 else 6 end as level, (
       am_in_scopes(f.scope, $4::boolean, $5::text[])
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and (not k.more or 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(am_fact_search_text(f.name, f.description, f.body)), false)
                          else position(x.word in lower(am_fact_search_text(f.name, f.description, f.body))) = 0 end))) as keep
           from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
           cross join lateral (
             select f.* from facts f
              where f.scope = s.scope
                and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix1 and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix2 and am_near_words(am_fact_search_text(f.name, f.description, f.body)) && k.fix3
              limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near)) f
          where not ($4::boolean and $8::text is null)
          limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near))
      ) c
     where c.keep
  ), near as materialized (
    select f.id, case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank, f.updated_at,
           array(select n.levels[array_position(n.keywords, k.i)] from kw k order by k.i) as levels,
           n.score
      from (select p.id, array_agg(p.i) as keywords, array_agg(p.level) as levels,
                   sum(case p.level when 5 then 1 else 0.5 end) as score
              from near_found p group by p.id) n
      join facts f on f.id = n.id
  ), sentence_words as materialized (
    -- The content words of each sentence keyword: an english query (none for a
    -- stop word), and for a keyword with CJK text the word as the service splits it.
    select w.i, w.j, w.q, w.cq
      from (select k.i, x.j,
                   case when length(to_tsvector('english', x.word)) > 0 then plainto_tsquery('english', x.word) end as q,
                   x.lexeme::tsquery as cq
              from kw0 k
              cross join lateral unnest(string_to_array(k.sentence, E'\n'), string_to_array(k.lexemes, E'\n')) with ordinality as x(word, lexeme, j)
             where k.sentence is not null) w
     where w.q is not null or w.cq is not null
  ), sentence_hold as materialized (
    -- Each word's readable facts (the words indexes, exact), at most $19.
    select w.i, w.j, f.id
      from sentence_words w
      cross join lateral (
        select f.id from facts f
         where (f.search_head @@ w.q or f.search_body @@ w.q or f.search_cjk @@ w.cq)
           and am_in_scopes(f.scope, $4::boolean, $5::text[])
           and ($6::text is null or f.type = $6::text)
           and ($7::text is null or f.status = $7::text)
           and ($8::text is null or f.scope = $8::text)
         limit $19::int) f
  ), sentence_pairs as materialized (
    -- A word whose lookup stopped at $19 is common: a fact holding two such
    -- words (and no rarer one) may be past both lookups, so each pair of them
    -- (among a keyword's first 8) is looked up too, both words at once.
    select c1.i, f.id
      from (select w.i, w.j, w.q, w.cq, row_number() over (partition by w.i order by w.j) as n
              from sentence_words w
             where (select count(*) from sentence_hold h where h.i = w.i and h.j = w.j) >= $19::int) c1
      join (select w.i, w.j, w.q, w.cq from sentence_words w
             where (select count(*) from sentence_hold h where h.i = w.i and h.j = w.j) >= $19::int) c2 on c2.i = c1.i and c2.j > c1.j
      cross join lateral (
        select f.id from facts f
         where (f.search_head @@ c1.q or f.search_body @@ c1.q or f.search_cjk @@ c1.cq)
           and (f.search_head @@ c2.q or f.search_body @@ c2.q or f.search_cjk @@ c2.cq)
           and am_in_scopes(f.scope, $4::boolean, $5::text[])
           and ($6::text is null or f.type = $6::text)
           and ($7::text is null or f.status = $7::text)
           and ($8::text is null or f.scope = $8::text)
         limit $19::int) f
     where c1.n <= 8 and c2.j <= (select max(x.j) from (select w.j from sentence_words w where w.i = c1.i order by w.j limit 8) x)
  ), sentence_weight as materialized (
    -- A word held by fewer facts says more about the question.
    select w.i, w.j, w.q, w.cq, ln(1 + $19::numeric / greatest((select count(*) from sentence_hold h where h.i = w.i and h.j = w.j), 1)) as weight
      from sentence_words w
  ), sentence_held as materialized (
    select c.id, c.i,
           count(*) filter (where m.head or m.body) as held,
           count(*) as words,
           -- Half how many it holds, half how rare those are (name and description
           -- counting double the body): more words first, rarer ones among equals.
           2 * sum(case when m.head then 1 when m.body then 0.5 else 0 end) / count(*)
             + 2 * sum(w.weight * case when m.head then 1 when m.body then 0.5 else 0 end) / sum(w.weight) as points,
           coalesce(bool_or(m.head), false) as in_head,
           array_agg(w.j order by w.j) filter (where m.head or m.body) as held_words
      from (select h.i, h.id from sentence_hold h union select p.i, p.id from sentence_pairs p) c
      join sentence_weight w on w.i = c.i
      join facts f on f.id = c.id
      cross join lateral (select f.search_head @@ w.q or f.search_cjk_head @@ w.cq as head, f.search_body @@ w.q or f.search_cjk @@ w.cq as body) m
     group by c.id, c.i
  ), sentence as materialized (
    select f.id, case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank, f.updated_at,
           array(select case when s2.id is null then null when s2.in_head then 7 else 8 end from kw k left join sentence_held s2 on s2.id = f.id and s2.i = k.i
                         and s2.held >= case when s2.words <= 2 then s2.words else ceil(s2.words / 2.0) end order by k.i) as levels,
           s.held_words, s.score
      from (select s.id, json_object_agg(s.i, s.held_words) as held_words, sum(s.points) as score
              from sentence_held s
             where s.held >= case when s.words <= 2 then s.words else ceil(s.words / 2.0) end
             group by s.id) s
      join facts f on f.id = s.id
  ), hits as (
    select coalesce(e.id, n.id, s.id) as id,
           coalesce(e.status_rank, n.status_rank, s.status_rank) as status_rank,
           coalesce(e.updated_at, n.updated_at, s.updated_at) as updated_at,
           coalesce(e.score, 0) + coalesce(n.score, 0) + coalesce(s.score, 0) as score,
           e.levels as exact_levels, n.levels as near_levels, s.levels as sentence_levels, s.held_words as sentence_words,
           count(*) over () as total
      from exact e full join near n on n.id = e.id full join sentence s on s.id = coalesce(e.id, n.id)
     order by score desc, status_rank, updated_at desc, id desc
     limit $9::int
  )
  select 
  f.id, f.scope, f.name, f.description, f.type, f.status, f.version,
  a.name as author, f.created_at, f.updated_at,
  sb.name as status_by, f.status_at, f.status_reason, char_length(f.body) as body_chars,
         am_fact_stale(f.status, f.status_at, $10::int) as stale,
         am_fact_search_body(f.body) as body,
         h.exact_levels, h.near_levels, h.sentence_levels, h.sentence_words, h.total, c.scope as copy_scope, c.name as copy_name
    from hits h
    join facts f on f.id = h.id
    
  join agents a on a.id = f.author_id
  left join agents sb on sb.id = f.status_by_id
  left join lateral am_fact_copy_of(f.id, f.version, f.status) c on true
   order by h.score desc, h.status_rank, h.updated_at desc, h.id desc
  ) r;
end $recall$;
