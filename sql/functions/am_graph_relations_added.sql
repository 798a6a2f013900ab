-- A relation counts once for each distinct name it touches (a relation from a
-- name to itself, once).
create or replace function am_graph_relations_added() returns trigger
  language plpgsql
  set search_path from current
  as $$
declare
  over record;
begin
  -- In (scope, key) order for every writer (see KEY_ORDER_NOTE in src/graph/sql.ts).
  insert into graph_relation_ends as t (scope, name_key, relations)
    select scope, k, count(*)::int from (
      select id, scope, am_graph_key(from_name) as k from added
      union
      select id, scope, am_graph_key(to_name) from added) ends
    group by scope, k
    order by scope collate "C", k
  on conflict (scope, name_key) do update set relations = t.relations + excluded.relations;
  select a.scope, a.name, t.relations as count into over
    from (select scope, name, am_graph_key(name) as k from (
      select scope, from_name as name from added union select scope, to_name from added) n) a
    join graph_relation_ends t on t.scope = a.scope and t.name_key = a.k
    where t.relations > am_graph_max_relations()
    limit 1;
  if found then
    raise exception 'name "%" would have % relations; the limit is %', over.name, over.count, am_graph_max_relations()
      using errcode = 'check_violation', constraint = 'graph_name_relations_max',
        detail = json_build_object('scope', over.scope, 'name', over.name, 'count', over.count, 'limit', am_graph_max_relations())::text;
  end if;
  return null;
end $$;
