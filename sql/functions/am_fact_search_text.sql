-- A fact's search text: what recall finds a keyword in by substring (the
-- facts_exact_trgm index) and corrects typos against (am_near_words, the
-- facts_near_words index and the vocabulary), and what redaction forgets words
-- of. The one definition: the indexes, the vocabulary trigger and every query
-- use it, and the migrator refuses to change it while an index depends on it
-- (a changed body would no longer match what the indexes hold): a new reading
-- is a new function, with a migration that rebuilds the indexes on it.
create or replace function am_fact_search_text(p_name text, p_description text, p_body text) returns text
  language sql immutable parallel safe
  return am_fact_search_head(p_name, p_description) || E'\n' || am_fact_search_body(p_body);
