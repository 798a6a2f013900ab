-- Adds the words of fact texts (am_fact_search_text of one version each) to
-- their scopes' vocabularies (fact_words, see am_near_words): the one way the
-- vocabulary grows, for a statement's new facts (am_fact_words_inserted), a
-- changed fact (am_fact_words) and an import's earlier versions
-- (src/facts/lifecycle/replay-sql.ts). Words in (word, scope) order, so
-- concurrent writers take the rows' locks in one order.
create or replace function am_fact_words_add(p_scopes text[], p_texts text[]) returns void
  language plpgsql
  set search_path from current
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select w.scope, w.word, am_word_deletes(w.word)
    from (select distinct t.scope, x.word
            from unnest(p_scopes, p_texts) as t(scope, text)
            cross join unnest(am_near_words(t.text)) as x(word)) w
   where not exists (select 1 from fact_words v where v.word = w.word and v.scope = w.scope collate "C")
   order by w.word collate "C", w.scope collate "C"
  on conflict do nothing;
end $$;
