-- The slot of graph_scope_entities this session keeps its counts in (the
-- migration that creates the table says why there are several).
create or replace function am_graph_entity_count_slot() returns smallint
  language sql stable parallel safe
  as $$ select (pg_backend_pid() % 16)::smallint $$;
