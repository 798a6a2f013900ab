-- Every one-letter delete (am_word_deletes) of each of a word's forms: what
-- recall looks up after the word's own deletes.
create or replace function am_forms_deletes(forms text[]) returns text[]
  language plpgsql immutable strict parallel safe
  set search_path from current
  as $$
begin
  return array(select distinct d
                 from unnest(forms) as f
                 cross join unnest(am_word_deletes(f)) as d);
end $$;
