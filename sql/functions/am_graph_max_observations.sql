create or replace function am_graph_max_observations() returns integer
  language sql immutable parallel safe as $$ select 1000 $$;
