-- Adds a changed fact's new words to its scope's vocabulary (fact_words, see
-- am_near_words) after an update of its near text.
create or replace function am_fact_words() returns trigger
  language plpgsql
  set search_path from current
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select new.scope, x.word, am_word_deletes(x.word)
    from unnest(am_near_words(am_fact_search_text(new.name, new.description, new.body))) as x(word)
   where not exists (select 1 from fact_words v where v.word = x.word and v.scope = new.scope collate "C")
   order by x.word collate "C"
  on conflict do nothing;
  return null;
end $$;
