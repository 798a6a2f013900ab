-- Keeps graph_entities.observation_count as observations are inserted, and
-- refuses a statement that takes an entity past am_graph_max_observations,
-- naming the entity (graph_entity_observations_max).
create or replace function am_graph_observations_added() returns trigger
  language plpgsql
  set search_path from current
  as $$
declare
  over record;
begin
  -- Entities in id order, the order add_observations locks them in.
  update graph_entities e set observation_count = e.observation_count + a.n
    from (select entity_id, count(*)::int as n from added group by entity_id) a
    where e.id = a.entity_id;
  select e.scope, e.name, e.observation_count as count into over
    from graph_entities e
    where e.id in (select entity_id from added) and e.observation_count > am_graph_max_observations()
    order by e.id limit 1;
  if found then
    raise exception 'entity "%" would carry % observations; the limit is %', over.name, over.count, am_graph_max_observations()
      using errcode = 'check_violation', constraint = 'graph_entity_observations_max',
        detail = json_build_object('scope', over.scope, 'name', over.name, 'count', over.count, 'limit', am_graph_max_observations())::text;
  end if;
  return null;
end $$;
