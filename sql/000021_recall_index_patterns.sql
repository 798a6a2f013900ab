-- Recall asks the trigram index for less (issue 17, speed). For a one-word
-- keyword the index now gets the keyword without its commonest three-letter
-- pieces ('%flami%ngo%' for "flamingo"; src/facts/index-pattern.ts), as a
-- 13th parameter, and the exact levels computed for each candidate drop the
-- candidates that contain no keyword after all. GIN had checked every
-- candidate against the lists of "ing" and "min", each a third of the facts:
-- at 100,000 facts the statement took 285 µs of Postgres time instead of 475
-- (bench/README.md, sixth round). What a recall finds is unchanged.
--
-- am_recall holds RECALL (src/facts/recall-sql.ts) character for character, as
-- in 000017; test/facts/recall-plan.test.ts fails when the two differ.
drop function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, real, integer);

create function am_recall(text[], text[], boolean[], boolean, text[], text, text, text, integer, integer, real, integer, text[])
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
                and not exists (select 1 from exact e where e.levels[k.i] is not null) as near
      from kw0 k
  ), near as materialized (
    select f.id, case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end as status_rank, f.updated_at, m.levels, m.score
      from facts f
      
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, 
  case when not k.near then null
       when word_similarity(k.text, (f.name || E'\n' || f.description)) >= $11::real then 5
       when word_similarity(k.text, (f.name || E'\n' || f.description || E'\n' || f.body)) >= $11::real then 6
  end as level from kw k) x
      ) m
     where (f.name || E'\n' || f.description || E'\n' || f.body) %> any(array(
             select k.text from kw k
              where k.near and set_config('pg_trgm.word_similarity_threshold', $11::real::text, true) is not null))
       and 
       ($4::boolean or f.scope = any($5::text[]))
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)
       -- Evaluated once, before the scan: with no near keyword (the usual case) the
       -- scan never runs, whatever plan the planner chose for it.
       and exists (select 1 from kw k where k.near)
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
