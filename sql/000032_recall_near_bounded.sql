-- Recall's near matches (typos) do bounded work (security audit, High: one
-- agent froze the embedded service with memory_recall).
--
-- A keyword that matched nothing exactly or by its words was looked up by
-- trigram word similarity over the whole text of every fact the trigram index
-- proposed, with no limit on how many: word_similarity costs ~7 ms for a
-- 16,000-character body on Postgres, and ten typo keywords ("alphx", "betx", …)
-- over 200 such facts of the caller's own scope ran past the 10 s statement
-- timeout on every call (one keyword: 3.6 s on Postgres); on the embedded
-- database the watchdog restarted the worker each time and other agents waited
-- 12-13 s.
--
-- Now the near lookups of one call read at most $14 facts in all
-- (RECALL_NEAR_MAX_FACTS, 100, shared among the near keywords), whatever the
-- filters (computed, not tested, so facts a filter drops count too), through
-- facts_near_trgm: a trigram index over the name, the
-- description and the first 1,000 characters of the body (what an answer shows
-- of a fact), led by the scope like the graph's (000010), so a caller that
-- reads some scopes never reads other scopes' facts here. The index's own
-- check (%>) and the level computed for each fact found therefore cover at
-- most 64 + 200 + 1,000 characters. A typo only in the body past its first
-- 1,000 characters is no longer found (exact and word matches still search
-- the whole body).
--
-- am_recall holds RECALL (src/facts/recall-sql.ts) character for character, as
-- in 000017 and 000021; test/facts/recall-plan.test.ts fails when the two differ.
create index facts_near_trgm on facts
  using gin (scope, ((name || E'\n' || description || E'\n' || left(body, 1000))) gin_trgm_ops)
  with (gin_pending_list_limit = 64);

drop function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, real, integer, text[]);

create function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, real, integer, text[], integer)
  returns setof json
  language plpgsql
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
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
        (select f.id, case when word_similarity(k.text, (f.name || E'\n' || f.description)) >= $11::real then 5 else 6 end as level, (
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)) as keep
           from facts f
          where $4::boolean and $8::text is null and (f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) %> k.text
          limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near))
        union all
        (select f.id, case when word_similarity(k.text, (f.name || E'\n' || f.description)) >= $11::real then 5 else 6 end as level, (
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)) as keep
           from facts f
          where not ($4::boolean and $8::text is null)
            and f.scope = any(case when $8::text is null then $5::text[] else array[$8::text] end)
            and (f.name || E'\n' || f.description || E'\n' || left(f.body, 1000)) %> k.text
          limit $14::int / (select greatest(count(*), 1) from kw k2 where k2.near))
      ) c
     where k.near and c.keep
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
