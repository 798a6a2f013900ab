-- Adds the words of a statement's new facts to their scopes' vocabularies
-- (fact_words, see am_near_words): one statement for a whole import. Words in
-- (word, scope) order, so concurrent writers take the rows' locks in one order.
create or replace function am_fact_words_inserted() returns trigger
  language plpgsql
  set search_path from current
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select w.scope, w.word, am_word_deletes(w.word)
    from (select distinct f.scope, x.word
            from new_facts f
            cross join unnest(am_near_words(am_fact_search_text(f.name, f.description, f.body))) as x(word)) w
   where not exists (select 1 from fact_words v where v.word = w.word and v.scope = w.scope collate "C")
   order by w.word collate "C", w.scope collate "C"
  on conflict do nothing;
  return null;
end $$;
