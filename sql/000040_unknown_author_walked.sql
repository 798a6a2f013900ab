-- Whether an agent name exists no longer shows in how a filtered list answers
-- (security audit, stop 21, Low). memory_list's author filter (am_fact_page,
-- 000025) and the console's activity filter (am_recent_page, 000037) answered at
-- once for a name no agent has, and walked the caller's scopes for a known one
-- (saying it stopped at LIST_SCAN_MAX when they held more): a reader could tell
-- which names are agents. Now an unknown name is walked like a known agent who
-- wrote nothing here (id 0, which no agent has). Otherwise both functions are
-- as before.

create or replace function am_fact_page(
  p_order text, p_status text, p_from bigint, p_cutoff timestamptz, p_after_at timestamptz, p_after_id bigint,
  p_max integer, p_want integer,
  p_read_all boolean, p_read text[], p_type text, p_scope text, p_author text,
  p_not_author bigint, p_write_all boolean, p_write text[])
  returns table (id bigint, change_seq bigint, status_at timestamptz, kept boolean, last boolean)
  language plpgsql stable
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_author bigint := (select a.id from agents a where a.name = p_author);
begin
  if p_author is not null and v_author is null then
    v_author := 0; -- no agent has id 0: the same walk as for one who wrote nothing here
  end if;
  -- Each branch: the index's order, at most p_max rows (n numbers them), then
  -- the rows that pass the filters or are the p_max-th. The bounds of the
  -- range are index conditions ("p_from is null or …" would be a filter, and a
  -- page deep in the list would read from the start again). The filter is the
  -- same text in every branch.
  if p_order = 'newest' and p_status is null then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.change_seq desc) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where f.change_seq < coalesce(p_from, 9223372036854775807)
         order by f.change_seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'newest' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status desc, f.change_seq desc) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where (f.status, f.change_seq) < (p_status, coalesce(p_from, 9223372036854775807))
           and (f.status, f.change_seq) > (p_status, -1)
         order by f.status desc, f.change_seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'oldest' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status, f.change_seq) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where (f.status, f.change_seq) > (p_status, coalesce(p_from, -1))
           and (f.status, f.change_seq) < (p_status, 9223372036854775807)
         order by f.status, f.change_seq
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'stale' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status_at, f.id) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where f.status = 'confirmed' and f.status_at < p_cutoff
           and (f.status_at, f.id) > (coalesce(p_after_at, '-infinity'::timestamptz), coalesce(p_after_id, -1))
         order by f.status_at, f.id
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  else
    raise exception 'am_fact_page: unknown order %', p_order;
  end if;
end $$;

create or replace function am_recent_page(
  p_source text, p_max integer, p_want integer, p_read_all boolean, p_read text[], p_actor text, p_before bigint)
  returns table (id bigint, kept boolean, last boolean)
  language plpgsql stable
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
