-- The head of a fact's search text: its name and description, which recall
-- ranks above the body (am_fact_search_text).
create or replace function am_fact_search_head(p_name text, p_description text) returns text
  language sql immutable parallel safe
  return p_name || E'\n' || p_description;
