-- The most relations one name takes part in (am_graph_relations_added).
create or replace function am_graph_max_relations() returns integer
  language sql immutable parallel safe as $$ select 1000 $$;
