-- Keeps graph_relation_ends as relations are deleted (a relation counts once
-- for each distinct name it touches).
create or replace function am_graph_relations_removed() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  update graph_relation_ends t set relations = t.relations - e.n
    from (
      select scope, k, count(*)::int as n from (
        select id, scope, am_graph_key(from_name) as k from removed
        union
        select id, scope, am_graph_key(to_name) from removed) ends
      group by scope, k) e
    where t.scope = e.scope and t.name_key = e.k;
  -- A name without relations leaves no row behind.
  delete from graph_relation_ends t
    where t.relations <= 0 and (t.scope, t.name_key) in (
      select scope, am_graph_key(from_name) from removed union select scope, am_graph_key(to_name) from removed);
  return null;
end $$;
