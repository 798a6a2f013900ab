-- The query recall matches a CJK keyword's words with (facts.search_cjk): all of
-- them (src/facts/cjk-words.ts keywordWords, joined by spaces), anywhere, or
-- with `weight` 'A' in the name and description only. Null for null words.
create or replace function am_cjk_query(words text, weight text) returns tsquery
  language sql immutable parallel safe
  as $$ select (select string_agg(am_lexeme(w) || coalesce(':' || weight, ''), ' & ')
            from unnest(string_to_array(words, ' ')) as w)::tsquery $$;
