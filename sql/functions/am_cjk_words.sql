-- facts.search_cjk: a fact's Chinese, Japanese and Korean words as the service
-- splits them (src/facts/cjk-words.ts), those of the name and description at
-- weight A, those of the body at weight B. Each word gets a position (all 1):
-- a lexeme without one carries no weight, and a weighted query would match it
-- anywhere.
create or replace function am_cjk_words(head text[], body text[]) returns tsvector
  language sql immutable parallel safe
  as $$ select setweight(coalesce((select string_agg(am_lexeme(w) || ':1', ' ') from unnest(head) as w)::tsvector, ''::tsvector), 'A')
      || setweight(coalesce((select string_agg(am_lexeme(w) || ':1', ' ') from unnest(body) as w)::tsvector, ''::tsvector), 'B') $$;
