-- One source's newest rows for the console's activity feed (p_source: fact
-- events, entities, relations, observations or deletions), below p_before:
-- across every scope, or scope by scope over the readable ones, each walk at
-- most p_max rows in all, keeping the rows by p_actor when given; `last` marks
-- where a walk stopped short.
create or replace function am_recent_page(
  p_source text, p_max integer, p_want integer, p_read_all boolean, p_read text[], p_actor text, p_before bigint)
  returns table (id bigint, kept boolean, last boolean)
  language plpgsql stable
  set search_path from current
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_actor bigint := (select a.id from agents a where a.name = p_actor);
  v_before bigint := coalesce(p_before, 9223372036854775807);
  v_walk integer := case when p_read_all then greatest(p_max, p_want + 1)
                         else greatest(p_want + 1, ceil(p_max::numeric / greatest(cardinality(p_read), 1))::integer) end;
begin
  if p_actor is not null and v_actor is null then
    v_actor := 0; -- no agent has id 0: the same walk as for one who wrote nothing here
  end if;
  if p_source = 'fact_events' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.actor_id = v_actor) as keep
          from fact_events t where t.id < v_before order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'fact_events' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.actor_id = v_actor) as keep
            from fact_events t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, v_before)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_entities' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_entities t where t.id < v_before order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_entities' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_entities t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, v_before)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_relations' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_relations t where t.id < v_before order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_relations' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_relations t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, v_before)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_observations' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_observations t where t.id < v_before order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_observations' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_observations t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, v_before)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_deletions' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.deleted_by = v_actor) as keep
          from graph_deletions t where t.id < v_before order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_deletions' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.deleted_by = v_actor) as keep
            from graph_deletions t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, v_before)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  else
    raise exception 'am_recent_page: unknown source %', p_source;
  end if;
end $$;
