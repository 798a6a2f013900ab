-- Keeps graph_scope_entities as entities are inserted: the count goes to this
-- session's slot (am_graph_entity_count_slot), whose row the transaction then
-- holds until it commits. Each write path inserts a scope's entities in one
-- statement, so no transaction holds a slot while it waits for another
-- writer's entity (no cycle of waits).
create or replace function am_graph_entities_added() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  insert into graph_scope_entities as s (scope, slot, entities)
    select scope, am_graph_entity_count_slot(), count(*)::int from added group by scope order by scope collate "C"
  on conflict (scope, slot) do update set entities = s.entities + excluded.entities;
  return null;
end $$;
