-- Adds the words of a statement's new facts to their scopes' vocabularies
-- (am_fact_words_add): one statement for a whole import.
create or replace function am_fact_words_inserted() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  perform am_fact_words_add(array_agg(f.scope), array_agg(am_fact_search_text(f.name, f.description, f.body)))
     from new_facts f;
  return null;
end $$;
