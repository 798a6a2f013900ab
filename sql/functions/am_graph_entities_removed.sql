-- Keeps graph_scope_entities as entities are deleted: this session's slot goes
-- down (below zero, when others added what it deletes; the sum is the count).
create or replace function am_graph_entities_removed() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  insert into graph_scope_entities as s (scope, slot, entities)
    select scope, am_graph_entity_count_slot(), -count(*)::int from removed group by scope order by scope collate "C"
  on conflict (scope, slot) do update set entities = s.entities + excluded.entities;
  return null;
end $$;
