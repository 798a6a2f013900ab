-- Adds a changed fact's new words to its scope's vocabulary (am_fact_words_add)
-- after an update of its near text.
create or replace function am_fact_words() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  perform am_fact_words_add(array[new.scope], array[am_fact_search_text(new.name, new.description, new.body)]);
  return null;
end $$;
