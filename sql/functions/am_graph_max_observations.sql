-- The most observations one entity holds (am_graph_observations_added).
create or replace function am_graph_max_observations() returns integer
  language sql immutable parallel safe as $$ select 1000 $$;
