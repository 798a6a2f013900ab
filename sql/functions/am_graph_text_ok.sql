-- A generous hard ceiling under the configurable limit, so even a
-- misconfigured service cannot store megabyte names.
create or replace function am_graph_text_ok(t text, allow_empty boolean) returns boolean
  language sql immutable strict parallel safe
  as $$ select char_length(t) <= 1000000 and (allow_empty or char_length(t) > 0) $$;
