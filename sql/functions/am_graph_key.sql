-- Names, types and observation texts may be a few thousand characters (the
-- service caps them, GRAPH_TEXT_MAX_CHARS), which does not fit a btree entry
-- (about 2.7 kB). Unique keys and equality lookups therefore use a SHA-256 of
-- the text's UTF-8 bytes. Getting those bytes with only immutable functions (so
-- the function can be inlined and indexed): decode(…, 'escape') copies every byte
-- except backslash sequences, so doubling each backslash first makes it the
-- identity. (text::bytea would parse escapes; convert_to and textsend are only
-- "stable".)
create or replace function am_graph_key(t text) returns bytea
  language sql immutable strict parallel safe
  as $$ select sha256(decode(replace(t, '\', '\\'), 'escape')) $$;
