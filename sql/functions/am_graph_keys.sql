-- am_graph_key of each text, for lookups of many names at once.
create or replace function am_graph_keys(ts text[]) returns bytea[]
  language sql immutable strict parallel safe
  as $$ select coalesce(array_agg(am_graph_key(t)), '{}') from unnest(ts) as t $$;
