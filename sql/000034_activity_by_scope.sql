-- The console's activity feed reads each source newest first within the
-- reader's scopes, so that its work is bounded by what the reader may read and
-- by the page size (security audit, left open until now: the feed walked each
-- table's primary key backwards and kept the readable rows, so a reader of a
-- few scopes paid for what other agents wrote elsewhere: 20,000 deletions in a
-- hidden scope were 20,030 rows read per page, and an agent filter read every
-- row of every source; figures in docs/console.md).
--
-- Every source gets an index that leads with the scope, in id order:
-- graph_entities and graph_relations have one (000004); graph_observations'
-- (scope, entity_id, id) is in entity order, and graph_deletions had none.
create index graph_observations_scope_id on graph_observations (scope, id);
create index graph_deletions_scope_id on graph_deletions (scope, id);

-- fact_events had no scope (only its fact's). A copy, as graph_observations
-- got in 000010, kept equal to the fact's by a foreign key on both columns (a
-- fact never changes scope: am_check_fact_change). The statements that write
-- events (src/facts/sql.ts) take it from the fact's row. fact_events is
-- append-only; its trigger is off only for this one backfill, inside the
-- migration's transaction.
alter table fact_events add column scope text;
alter table fact_events disable trigger fact_events_append_only;
update fact_events e set scope = f.scope from facts f where f.id = e.fact_id;
alter table fact_events enable trigger fact_events_append_only;
alter table fact_events alter column scope set not null;
create unique index facts_id_scope on facts (id, scope);
alter table fact_events
  add constraint fact_events_fact_scope foreign key (fact_id, scope) references facts (id, scope);
create index fact_events_scope_id on fact_events (scope, id);

-- am_recent_page: the newest rows of one source (p_source, a table name) that
-- the reader may read (p_read_all, or a scope in p_read), written by p_actor
-- (an agent's name) when given, up to p_want per scope. Each scope is read
-- through its (scope, id) index backwards (a reader of every scope: the
-- primary key), and at most v_walk rows per scope: p_max rows of every scope
-- together (LIST_SCAN_MAX), but never fewer than p_want + 1 per scope, so a
-- page without an actor (which keeps every row it reads) is never cut. As in
-- am_fact_page (000025): every row read is numbered, the actor is computed
-- (`kept`) and never a condition, and the v_walk-th row comes back marked
-- `last`, so the caller can tell that a walk stopped at its bound. A scope's
-- range is written as a row comparison on (scope, id) and ordered by both, so
-- that only the (scope, id) index yields it without a sort: with
-- "scope = r.scope" Postgres took the scope as fixed and read the primary key
-- backwards with the scope as a filter (measured: 20,015 rows removed by that
-- filter for a scope of 15 events). Sorts, sequential and bitmap scans are off
-- inside, so no other plan can produce the order.
create function am_recent_page(
  p_source text, p_max integer, p_want integer, p_read_all boolean, p_read text[], p_actor text)
  returns table (id bigint, kept boolean, last boolean)
  language plpgsql stable
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_actor bigint := (select a.id from agents a where a.name = p_actor);
  v_walk integer := case when p_read_all then greatest(p_max, p_want + 1)
                         else greatest(p_want + 1, ceil(p_max::numeric / greatest(cardinality(p_read), 1))::integer) end;
begin
  if p_actor is not null and v_actor is null then
    return; -- nobody of that name wrote anything
  end if;
  if p_source = 'fact_events' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.actor_id = v_actor) as keep
          from fact_events t order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'fact_events' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.actor_id = v_actor) as keep
            from fact_events t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, 9223372036854775807)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_entities' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_entities t order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_entities' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_entities t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, 9223372036854775807)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_relations' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_relations t order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_relations' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_relations t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, 9223372036854775807)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_observations' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
          from graph_observations t order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_observations' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.created_by = v_actor) as keep
            from graph_observations t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, 9223372036854775807)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  elsif p_source = 'graph_deletions' and p_read_all then
    return query
      select s.id, s.keep, s.n = v_walk from (
        select t.id, row_number() over (order by t.id desc) as n, (v_actor is null or t.deleted_by = v_actor) as keep
          from graph_deletions t order by t.id desc limit v_walk) s
       where s.keep or s.n = v_walk limit p_want;
  elsif p_source = 'graph_deletions' then
    return query
      select s.id, s.keep, s.last from unnest(p_read) as r(scope), lateral (
        select s.id, s.keep, s.n = v_walk as last from (
          select t.id, row_number() over (order by t.scope desc, t.id desc) as n, (v_actor is null or t.deleted_by = v_actor) as keep
            from graph_deletions t where (t.scope, t.id) > (r.scope, 0) and (t.scope, t.id) < (r.scope, 9223372036854775807)
           order by t.scope desc, t.id desc limit v_walk) s
         where s.keep or s.n = v_walk limit p_want) s;
  else
    raise exception 'am_recent_page: unknown source %', p_source;
  end if;
end $$;
