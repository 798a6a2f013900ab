-- The relations from or to the names p_names (the entities an answer shows), in
-- insertion order, within p_budget characters (am_graph_frame; the crossing one
-- still shown), and how many there are, counted up to countCap + 1: countCap
-- is p_count_cap (GRAPH_SEARCH_COUNT_MAX), or one more than the answer could
-- show if that is more, so that a count that stopped ("at least") is always
-- more than was shown. Only as many rows as could fit are read: each name's
-- first that many on each side, and the first that many of those; a relation
-- between two names shown (or from a name to itself) is met twice, so at most
-- twice countCap + 1 rows are counted.
-- Each name's relations on one side are read through the (scope, key, id)
-- indexes so that a LIMIT stops the scan, the scope an equality and the name a
-- closed range of its key ordered by (key, id): with "key = …" the planner takes
-- the key for a constant, sees id order in the primary key too, and where one
-- name holds most relations it walked the primary key, filtering every other
-- name's out; and a btree scan stops at the end of a range only when the range's
-- column directly follows the equalities (a row comparison over (scope, key,
-- id) reads the rest of the scope's index on every lookup, so a read would
-- cost in proportion to the scope; test/graph/reads-flat.test.ts).
-- Answers {"relations": [...], "total": n, "countCap": n}.
create or replace function am_graph_relations_touching(p_scope text, p_names text[], p_budget integer, p_count_cap integer, p_provenance boolean)
  returns json
  language plpgsql stable
  set search_path from current
  set plan_cache_mode = force_generic_plan
  as $$
declare
  v_shown integer := p_budget / am_graph_frame('relation') + 1;
  v_cap integer := greatest(p_count_cap, p_budget / am_graph_frame('relation') + 1);
begin
  return (
    with names as (select n.name from unnest(p_names) as n(name)),
    rsel as (
      select distinct t.id from (select x.id from names k cross join lateral (
        (select r.id from graph_relations r
          where r.scope = p_scope and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
          order by am_graph_key(r.from_name), r.id limit v_shown)
        union all
        (select r.id from graph_relations r
          where r.scope = p_scope and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
          order by am_graph_key(r.to_name), r.id limit v_shown)) x) t
      order by t.id limit v_shown
    ), rshown as (
      select x.* from (
        select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
          sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) over (order by r.id)
            - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) as at
        from graph_relations r where r.id = any(array(select id from rsel))
      ) x
      where x.at < p_budget
    )
    select json_build_object(
      'relations', coalesce((select json_agg(
          case when p_provenance then json_build_object('from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type,
            'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          else json_build_object('from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type) end
          order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json),
      'total', (select count(distinct t.id) from (select x.id from names k cross join lateral (
        (select r.id from graph_relations r
          where r.scope = p_scope and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
          order by am_graph_key(r.from_name), r.id limit 2 * (v_cap + 1))
        union all
        (select r.id from graph_relations r
          where r.scope = p_scope and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
          order by am_graph_key(r.to_name), r.id limit 2 * (v_cap + 1))) x limit 2 * (v_cap + 1)) t),
      'countCap', v_cap));
end $$;
