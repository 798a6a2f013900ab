-- Recall's typo lookup (near matches) reads a number of rows bounded by
-- constants, also over facts written to defeat it (security review, open since
-- 000032): the trigram word-similarity lookup's LIMIT counted only the facts
-- that passed the index's recheck, and facts holding a keyword's trigrams apart
-- ("hx zqzq al" for "alphx") were each read and rejected uncounted (3,000 of
-- them and 8 typo keywords: 4.7 s a recall on Postgres).
--
-- Now typos are corrected word by word against a vocabulary, with symmetric
-- deletes (as SymSpell): every index lookup below is exact (GIN array overlap
-- and btree_gin equality are never rechecked), so each LIMIT counts every row
-- the lookup reads (docs/recall.md, "Near matches").
--
-- fact_words: per scope, the distinct words of the text near matches are sought
-- in (name, description, first 1,000 characters of the body): lowercased runs of
-- letters and digits ([[:alnum:]], any script; pg_trgm's idea of a word) of
-- 4-40 characters (am_near_words). `deletes` holds the word itself and every
-- string made by deleting one of its characters (am_word_deletes): a keyword's
-- word w and a vocabulary word v are one edit apart (insert, delete, substitute,
-- swap two adjacent characters) only if their two sets meet, so `deletes &&
-- am_word_deletes(w)` finds every candidate; am_edit1 then checks the distance
-- (a shared delete can also be two edits apart). Maintained by a trigger on
-- facts; words are never deleted (a stale word costs a candidate slot, nothing
-- else; the vocabulary grows with the distinct words ever written in a scope).
--
-- facts_near_words: the words of each fact's near text (the same function), led
-- by the scope, so recall finds the facts holding a correction exactly. It
-- replaces facts_near_trgm (000032), which nothing else used.
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined is planned again on
-- every statement that calls it (each store, in the trigger and in the index
-- expression); PL/pgSQL keeps its plan for the connection. Measured: the
-- trigger cost ~1 ms a stored fact with SQL functions.
create function am_near_words(t text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return (select coalesce(array_agg(distinct w), '{}')
            from regexp_split_to_table(lower(t), '[^[:alnum:]]+') as w
           where char_length(w) between 4 and 40);
end $$;

create function am_word_deletes(w text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return (select array_agg(distinct d)
            from (select w as d
                  union all
                  select left(w, i - 1) || substr(w, i + 1) from generate_series(1, char_length(w)) as i) x);
end $$;

-- True when a and b are at most one edit apart: insert, delete or substitute one
-- character, or swap two adjacent ones (optimal string alignment distance <= 1).
create function am_edit1(a text, b text) returns boolean
  language plpgsql immutable strict parallel safe
  as $$
declare
  la int := char_length(a);
  lb int := char_length(b);
  p int := 1;
begin
  if abs(la - lb) > 1 then
    return false;
  end if;
  while p <= least(la, lb) and substr(a, p, 1) = substr(b, p, 1) loop
    p := p + 1;
  end loop;
  if la = lb then
    return substr(a, p + 1) = substr(b, p + 1)
        or (substr(a, p, 1) = substr(b, p + 1, 1) and substr(a, p + 1, 1) = substr(b, p, 1)
            and substr(a, p + 2) = substr(b, p + 2));
  elsif la > lb then
    return substr(a, p + 1) = substr(b, p);
  else
    return substr(a, p) = substr(b, p + 1);
  end if;
end $$;

create table fact_words (
  scope text not null,
  word text not null,
  deletes text[] not null
);

-- One row per word and scope. The scope is compared byte-wise ("C") here so that
-- no btree index can serve recall's "scope = …": with one, the planner read a
-- whole scope's words and filtered them (seen on both databases, 13 to 2,014
-- words a keyword) instead of asking fact_words_deletes for the few that
-- share a delete. Scope equality is the same under either collation.
create unique index fact_words_word on fact_words (word, scope collate "C");

insert into fact_words (scope, word, deletes)
select w.scope, w.word, am_word_deletes(w.word)
  from (select distinct f.scope, x.word
          from facts f
          cross join unnest(am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000))) as x(word)) w;

create index fact_words_deletes on fact_words
  using gin (scope, deletes)
  with (gin_pending_list_limit = 64);

-- The probe compares the scope byte-wise so that only fact_words_word serves it
-- (with the default collation the GIN index's scope column could, and a plan
-- made while the table was empty read the whole scope's words for every word of
-- every later fact: a bulk insert of 20,000 facts ran past 30 s);
-- enable_seqscan off for the same reason.
create function am_fact_words() returns trigger
  language plpgsql
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select new.scope, x.word, am_word_deletes(x.word)
    from unnest(am_near_words(new.name || E'\n' || new.description || E'\n' || left(new.body, 1000))) as x(word)
   where not exists (select 1 from fact_words v where v.word = x.word and v.scope = new.scope collate "C")
  on conflict do nothing;
  return null;
end $$;

-- New facts: once per statement, over all its rows (a bulk insert or an import
-- looks each distinct word up once).
create function am_fact_words_inserted() returns trigger
  language plpgsql
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select w.scope, w.word, am_word_deletes(w.word)
    from (select distinct f.scope, x.word
            from new_facts f
            cross join unnest(am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000))) as x(word)) w
   where not exists (select 1 from fact_words v where v.word = w.word and v.scope = w.scope collate "C")
  on conflict do nothing;
  return null;
end $$;

create trigger facts_words_insert after insert on facts
  referencing new table as new_facts
  for each statement execute function am_fact_words_inserted();
create trigger facts_words_update after update of scope, name, description, body on facts
  for each row
  when (old.scope is distinct from new.scope or old.name is distinct from new.name
        or old.description is distinct from new.description or left(old.body, 1000) is distinct from left(new.body, 1000))
  execute function am_fact_words();

create index facts_near_words on facts
  using gin (scope, am_near_words(name || E'\n' || description || E'\n' || left(body, 1000)))
  with (gin_pending_list_limit = 64);

drop index facts_near_trgm;

-- am_recall holds RECALL (src/facts/recall-sql.ts) character for character, as
-- in 000017, 000021 and 000032; test/facts/recall-plan.test.ts fails when the
-- two differ. $11 is now the candidates read per word (RECALL_NEAR_WORD_CANDIDATES)
-- instead of the word-similarity threshold. jit = off: the generic plan's cost
-- estimate (about a thousand words per keyword, each with its vocabulary
-- lookup) passes Postgres's JIT thresholds, and compiling it took 9 s on the
-- first call of each connection for a statement that runs in milliseconds.
drop function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, real, integer, text[], integer);

create function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, integer, integer, text[], integer)
  returns setof json
  language plpgsql
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
  set jit = off
  as $recall$
begin
  return query select to_json(r) from (

  with kw0 as materialized (
    select k.i::int as i, k.text, k.pattern, lower(k.pattern) as lower_pattern, k.phrase,
           case when k.phrase then phraseto_tsquery('english', k.text) || phraseto_tsquery('simple', k.text)
                else plainto_tsquery('english', k.text) || plainto_tsquery('simple', k.text) end as q
      from unnest($1::text[], $2::text[], $3::boolean[]) with ordinality as k(pattern, text, phrase, i)
  ), exact as materialized (
    select f.id, case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank, f.updated_at, m.levels, m.score
      from facts f
      cross join lateral (select lower((f.name || E'\n' || f.description)) as head, lower(f.body) as body offset 0) t
      
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, 
  case when t.head like k.lower_pattern then 1
       when f.search_head @@ k.q then 2
       when f.search_body @@ k.q then (case when t.body like k.lower_pattern then 3 else 4 end)
       when t.body like k.lower_pattern then 3
  end as level from kw0 k) x
      ) m
     where ((f.name || E'\n' || f.description || E'\n' || f.body) ilike any($13::text[]) or f.search_head @@ (select am_tsquery_or(q) from kw0) or f.search_body @@ (select am_tsquery_or(q) from kw0))
       and 
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and m.score > 0
  ), kw as materialized (
    select k.*, not k.phrase and char_length(k.text) >= $12::int
                and not exists (select 1 from exact e where e.levels[k.i] is not null) as near
      from kw0 k
  ), near_fixes as materialized (
    -- Each word of a near keyword (lowercased runs of letters and digits, as in
    -- am_near_words); each of $12 characters or more gets its corrections: the
    -- vocabulary's words (fact_words) one edit away (insert, delete, substitute,
    -- swap two adjacent letters). A word and its one-letter deletes meet a
    -- vocabulary word's (symmetric delete) through the exact index
    -- fact_words_deletes; at most $11 candidates read per word, before the
    -- edit distance is checked. One branch runs; a caller of some scopes looks
    -- up one scope after another, as in near_found.
    select k.i, w.n, w.word, char_length(w.word) >= $12::int as corrected,
           row_number() over (partition by k.i order by char_length(w.word) >= $12::int desc, char_length(w.word) desc, w.n) as rank,
           (select array_agg(c.word) filter (where am_edit1(c.word, w.word))
              from ((select v.word from fact_words v
                      where $4::boolean and $8::text is null and char_length(w.word) >= $12::int
                        and v.deletes && am_word_deletes(w.word)
                      limit $11::int)
                    union all
                    (select v.word
                       from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
                       cross join lateral (
                         select v.word from fact_words v
                          where v.scope = s.scope and v.deletes && am_word_deletes(w.word)
                          limit $11::int) v
                      where not ($4::boolean and $8::text is null) and char_length(w.word) >= $12::int
                      limit $11::int)) c) as fixes
      from kw k
      cross join lateral regexp_split_to_table(lower(k.text), '[^[:alnum:]]+') with ordinality as w(word, n)
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
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(f.name || E'\n' || f.description), false)
                          else position(x.word in lower(f.name || E'\n' || f.description)) = 0 end) then 5 else 6 end as level, (
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and (not k.more or 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)), false)
                          else position(x.word in lower(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000))) = 0 end))) as keep
           from facts f
          where $4::boolean and $8::text is null
            and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix1 and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix2 and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix3
          limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near))
        union all
        (select f.id, case when 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(f.name || E'\n' || f.description), false)
                          else position(x.word in lower(f.name || E'\n' || f.description)) = 0 end) then 5 else 6 end as level, (
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       and (not k.more or 
  not exists (select 1 from near_fixes x
               where x.i = k.i
                 and case when x.corrected then not coalesce(x.fixes && am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)), false)
                          else position(x.word in lower(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000))) = 0 end))) as keep
           from unnest(case when $8::text is null then $5::text[] else array[$8::text] end) as s(scope)
           cross join lateral (
             select f.* from facts f
              where f.scope = s.scope
                and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix1 and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix2 and am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) && k.fix3
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
  select 
  f.id, f.scope, f.name, f.description, f.type, f.status, f.version,
  a.name as author, f.created_at, f.updated_at,
  sb.name as status_by, f.status_at, f.status_reason, char_length(f.body) as body_chars,
         left(f.body, $10::int) as body,
         h.exact_levels, h.near_levels, h.total
    from hits h
    join facts f on f.id = h.id
    
  join agents a on a.id = f.author_id
  left join agents sb on sb.id = f.status_by_id
   order by h.score desc, h.status_rank, h.updated_at desc, h.id desc
  ) r;
end $recall$;
