-- Keeps graph_entities.observation_count as observations are deleted.
create or replace function am_graph_observations_removed() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  -- (An entity deleted with its observations is gone already: nothing to update.)
  update graph_entities e set observation_count = e.observation_count - r.n
    from (select entity_id, count(*)::int as n from removed group by entity_id) r
    where e.id = r.entity_id;
  return null;
end $$;
