-- A word as a quoted lexeme of tsvector and tsquery input ('it''s', with
-- backslashes doubled), so that any word the service splits out is taken
-- whole, never parsed again: am_cjk_words and am_cjk_query.
create or replace function am_lexeme(word text) returns text
  language sql immutable strict parallel safe
  as $$ select '''' || replace(replace(word, '\', '\\'), '''', '''''') || '''' $$;
