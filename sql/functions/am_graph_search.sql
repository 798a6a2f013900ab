-- search_nodes: the entities of scope p_scope whose name, type or any
-- observation contains the pattern p_pattern (an escaped '%…%' ILIKE), with the
-- relations touching those shown, in one call. Matches are counted exactly up to
-- p_count_cap; past it the answer says "at least", so the work of a search does
-- not grow with its matches.
--
-- Two ways to find the matches:
-- - the lists (`names`, `types`, `obs`): each condition (name, type,
--   observation text) on its own through the trigram indexes, each read only up
--   to the cap + 1. When no list reaches that, together they are every match,
--   and a selective query costs what its matches cost. A list past the cap
--   settles the count.
-- - the walk: when a list reached its limit (the query is common), the scope's
--   entities in id order, each tested against the three conditions, a step of
--   am_graph_walk('entities') entities and am_graph_walk('observations')
--   observations at a time, until the page (and, when the lists did not settle
--   it, the count) is complete; with many matches that comes early. At most
--   p_scan_max entities (in steps) per call: stopped there, the answer's
--   cursor resumes the walk (walked_to, walked_obs), inside an entity if need be.
-- The lists serve a query with a trigram of its own (p_listable), through the
-- trigram indexes, and one of one or two Chinese, Japanese or Korean
-- characters, through the indexes of the texts' pieces (am_cjk_grams). On the
-- embedded database (p_walk_large) a scope larger than one call's walk is
-- walked whatever the query: a GIN lookup reads the scope's whole posting list
-- and those of the query's trigrams, then rechecks every candidate, and no LIMIT
-- stops it ("ipsum lorem" over 600,000 observations of "observation N lorem
-- ipsum": 2.6 s a call through its one connection, which every agent waits
-- for); on Postgres a slow search holds one pooled connection and the agent's
-- own slot. Which way is decided first, from at most one call's walk of index
-- entries whatever the scope holds; the way not taken is behind a one-time
-- filter and never runs.
--
-- p_after: the entity id the page starts after (0, or a cursor's); p_offset:
-- matches to skip past it; p_after_observation: when > 0, the walk resumes inside
-- entity p_after, after that observation (its name, type and observations up to
-- there were tested without a match).
-- Without sequential scans: told that the query has a limit, the planner would
-- otherwise read a whole table, every scope's rows, hoping to stop early when
-- statistics (of any scope) say the pattern is common. One generic plan per
-- connection: planned anew on each call it cost ~1.5 ms, more than a selective
-- search takes to run. The pattern and the cap are init plans' values
-- ((select p_pattern)): unseen, the pattern cannot lead the planner to read the
-- scope's rows in the belief that another scope's statistics hold for this one.
-- Answers {"total", "matched", "complete", "walkedTo", "walkedObs", "lastId",
-- "entities", "relations", "totalRelations", "relationsCountCap"}: matches counted
-- (exact up to the cap), matches found (more than offset + shown when another
-- page follows), whether the lists held every match, where a walk stopped at its
-- bound before the page was complete, and the last entity shown.
create or replace function am_graph_search(p_scope text, p_pattern text, p_limit integer, p_offset integer, p_entity_budget integer,
  p_relation_budget integer, p_count_cap integer, p_after bigint, p_scan_max integer, p_after_observation bigint, p_listable boolean, p_walk_large boolean)
  returns json
  language plpgsql stable
  set search_path from current
  set plan_cache_mode = force_generic_plan
  set enable_seqscan = off
  as $$
declare
  v_steps integer := greatest(1, p_scan_max / am_graph_walk('entities'));
  v_page_end integer := p_offset + least(p_limit, p_entity_budget / am_graph_frame('entity') + 1);
  -- The query when it is one or two Chinese, Japanese or Korean characters (the
  -- pattern %…% around them, which need no escape): no trigram of its own, it is
  -- looked up among the texts' pieces (am_cjk_grams, graph_*_cjk_grams).
  v_query text := substr(p_pattern, 2, char_length(p_pattern) - 2);
  v_gram text := case when char_length(p_pattern) <= 4 and v_query = any(am_cjk_grams(v_query)) then v_query end;
  v_listed boolean;
  v_match record;
  v_page json;
  v_relations json;
begin
  -- Whether the scope holds more than one call's walk: whether it has that many
  -- entries from its start in (scope, id) / (scope, entity_id, id) order; a row
  -- comparison ordered by the whole key, with the scope an init plan's value
  -- (with "scope = …" Postgres served the order from
  -- graph_observations_entity_id, testing the scope on every scope's rows), and
  -- the scope's end an upper bound, so a small scope reads only its own entries
  -- (not those of the scopes after it).
  v_listed := (p_listable or v_gram is not null) and (not p_walk_large or not (
    (select count(*) from (select t.scope from graph_entities t
       where (t.scope, t.id) > ((select p_scope), 0) and t.scope <= (select p_scope)
       order by t.scope, t.id limit v_steps * am_graph_walk('entities') + 1) r) > v_steps * am_graph_walk('entities')
    or (select count(*) from (select t.scope from graph_observations t
       where (t.scope, t.entity_id, t.id) > ((select p_scope), 0, 0) and t.scope <= (select p_scope)
       order by t.scope, t.entity_id, t.id limit v_steps * am_graph_walk('observations') + 1) r)
         > v_steps * am_graph_walk('observations')));

  with recursive
  -- Each list from the trigram index, or for a query of one or two CJK
  -- characters (v_gram) from the index of pieces; one branch runs. The pieces'
  -- candidates are checked by ILIKE apart ("offset 0"): the planner would
  -- otherwise AND in the trigram index, which has nothing to look up for such a
  -- pattern and reads the scope's whole entry.
  names_rows as materialized (
    select id from graph_entities where v_listed and v_gram is null and scope = p_scope and name ilike (select p_pattern)
    union all
    select id from (select id, name from graph_entities where v_listed and v_gram is not null and scope = p_scope and am_cjk_grams(name) @> array[(select v_gram)] offset 0) e
     where name ilike (select p_pattern)),
  types_rows as materialized (
    select id from graph_entities where v_listed and v_gram is null and scope = p_scope and entity_type ilike (select p_pattern)
    union all
    select id from (select id, entity_type from graph_entities where v_listed and v_gram is not null and scope = p_scope and am_cjk_grams(entity_type) @> array[(select v_gram)] offset 0) e
     where entity_type ilike (select p_pattern)),
  obs_rows as materialized (
    select entity_id as id from graph_observations where v_listed and v_gram is null and scope = p_scope and content ilike (select p_pattern)
    union all
    select entity_id from (select entity_id, content from graph_observations where v_listed and v_gram is not null and scope = p_scope and am_cjk_grams(content) @> array[(select v_gram)] offset 0) o
     where content ilike (select p_pattern)),
  names as materialized (select array(select id from names_rows limit (select p_count_cap) + 1) as a),
  types as materialized (select array(select id from types_rows limit (select p_count_cap) + 1) as a),
  obs as materialized (select array(select id from obs_rows limit (select p_count_cap) + 1) as a),
  found as materialized (
    -- A list past the cap settles the count: the walk then only has to reach the
    -- end of the page (+ 1, to tell whether more follow). Names and types hold
    -- distinct entities; observations may repeat one. Evaluated in order and
    -- lazily (a CTE is read when first needed), so a common name skips the rest.
    select case
        when (select cardinality(a) from names) > (select p_count_cap) then (select p_count_cap) + 1
        when (select cardinality(a) from types) > (select p_count_cap) then (select p_count_cap) + 1
        else (select count(distinct x) from (
          select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x))::int
      end as counted
  ), decided as materialized (
    -- Every match is in the lists when they were read and none stopped at its
    -- limit (an AND stops at a settled count without reading the observations).
    -- After a cursor the count is "at least" anyway: the walk ends with the page.
    select f.counted,
      v_listed and f.counted <= (select p_count_cap) and (select cardinality(a) from obs) <= (select p_count_cap) as complete,
      case when f.counted > (select p_count_cap) or (select p_after) > 0 then v_page_end + 1 else greatest(v_page_end + 1, (select p_count_cap) + 1) end as want
    from found f
  ), walk(last_id, last_obs, ids, n, steps, whole) as (
    select (select p_after), case when (select p_after_observation) > 0 then (select p_after_observation) else 9223372036854775807::bigint end, '{}'::bigint[], 0, 0, true
    from decided where not complete
    union all
    select s.last_id, s.last_obs, s.ids, w.n + cardinality(s.ids), w.steps + 1, s.more
    from walk w cross join lateral (
      -- The step's entities: those of the caller's scope among the next rows of
      -- the (scope, id) index (inside: rows past the scope's end count nothing).
      -- first_open, last_open: the first and last entity whose name and type did
      -- not match, where the observations to test begin and end.
      select max(x.id) filter (where x.inside) as last_id, count(*) filter (where x.inside) as rows,
        coalesce(array_agg(x.id) filter (where x.inside and x.hit), '{}') as hits,
        min(x.id) filter (where x.inside and not x.hit) as first_open, max(x.id) filter (where x.inside and not x.hit) as last_open
      from (
        select e.id, e.scope = (select p_scope) as inside, (e.name ilike (select p_pattern) or e.entity_type ilike (select p_pattern)) as hit
        from graph_entities e
        -- From the walk's place on, in (scope, id) order (an entity the walk
        -- stands inside comes again), as a row comparison with no upper bound:
        -- planned without seeing the scope, it is estimated at a third of the
        -- table, so reading a step's rows of the index in order always looks
        -- cheaper than sorting the scope's rows. (Bounded on both sides, each
        -- step read the whole scope through graph_entities_scope_name to sort
        -- it; with an equality on the scope the primary key yields this order
        -- too, and a plan walking every scope's entities was chosen.)
        where (e.scope, e.id) > ((select p_scope), w.last_id - (w.last_obs < 9223372036854775807::bigint)::int)
        order by e.scope, e.id
        limit am_graph_walk('entities')
      ) x
    ) c cross join lateral (
      -- The observations from the first entity to test on, in (scope, entity,
      -- id) order, one range of that index whatever the entities hold; those
      -- past the last entity to test (inside: false) count nothing. No ILIKE in
      -- the condition, so only that index can serve it, in its order.
      select count(*) filter (where y.inside) as rows, max(array[y.entity_id, y.id]) filter (where y.inside) as last,
        coalesce(array_agg(y.entity_id) filter (where y.inside and y.hit), '{}') as hits
      from (
        select o.entity_id, o.id, o.scope = (select p_scope) and o.entity_id <= c.last_open as inside, o.content ilike (select p_pattern) as hit
        from graph_observations o
        where c.first_open is not null
          and (o.scope, o.entity_id, o.id) > ((select p_scope), c.first_open, case when c.first_open = w.last_id then w.last_obs else 0 end)
        order by o.scope, o.entity_id, o.id
        limit am_graph_walk('observations')
      ) y
    ) v cross join lateral (
      -- Where the step ends: at its last entity, or, when the observations
      -- filled their limit, at the last one read (inside its entity, unless
      -- that entity matched). Matches past that place are left to the next step.
      select f.at as last_id, case when f.full and not (f.at = any(c.hits || v.hits)) then v.last[2] else 9223372036854775807::bigint end as last_obs,
        array(select distinct h from unnest(c.hits || v.hits) as h where h <= f.at) as ids,
        c.rows = am_graph_walk('entities') or f.full as more
      from (select v.rows = am_graph_walk('observations') as full,
              case when v.rows = am_graph_walk('observations') then v.last[1] else c.last_id end as at) f
    ) s
    where w.n < (select want from decided) and w.steps < v_steps and c.last_id is not null
  ), matched as materialized (
    select distinct x as id from decided d, lateral (
      select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x)
    -- (An entity a cursor stands inside was not shown yet.)
    where d.complete and x > (select p_after) - ((select p_after_observation) > 0)::int
    union all
    select x from walk w cross join unnest(w.ids) as x
  ), stopped as (
    select w.last_id, nullif(w.last_obs, 9223372036854775807::bigint) as last_obs
    from walk w where w.steps = v_steps and w.whole and w.n < (select want from decided)
  )
  select greatest((select counted from decided), (select count(*) from matched))::int as total,
    (select count(*) from matched)::int as matched,
    (select complete from decided) as complete,
    (select last_id from stopped) as walked_to,
    (select last_obs from stopped) as walked_obs,
    array(select id from matched order by id limit least(p_limit, p_entity_budget / am_graph_frame('entity') + 1) offset p_offset) as page
  into v_match;

  v_page := am_graph_entities(p_scope, v_match.page, p_entity_budget, false, false);
  v_relations := am_graph_relations_touching(p_scope, array(select json_array_elements_text(v_page->'names')), p_relation_budget, p_count_cap, false);
  return json_build_object('total', v_match.total, 'matched', v_match.matched, 'complete', v_match.complete,
    'walkedTo', v_match.walked_to, 'walkedObs', v_match.walked_obs, 'lastId', v_page->'lastId',
    'entities', v_page->'entities', 'relations', v_relations->'relations',
    'totalRelations', v_relations->'total', 'relationsCountCap', v_relations->'countCap');
end $$;
