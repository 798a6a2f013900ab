-- am_graph_key of each text, for lookups of many names at once. A standard SQL
-- body: am_graph_key is bound when this is created, so the call resolves under
-- any search_path (pg_restore's is empty).
create or replace function am_graph_keys(ts text[]) returns bytea[]
  language sql immutable strict parallel safe
  return (select coalesce(array_agg(am_graph_key(t)), '{}') from unnest(ts) as t);
