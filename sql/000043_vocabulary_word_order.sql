-- New words go into the recall vocabulary (fact_words, 000035) in one order for
-- every writer: by word, then scope, byte-wise.
--
-- Each new word is inserted through the unique index fact_words_word, and a
-- writer of a word that another open transaction has just inserted waits for
-- that transaction to end (ON CONFLICT must know whether it commits). Two
-- writers that take common words in different orders can so each wait for the
-- other: a deadlock, which Postgres breaks after deadlock_timeout (1 s) by
-- failing one of them, and the agent is told another agent is changing the same
-- record. The statement trigger's words went in in the order of the
-- HashAggregate that makes them distinct, which follows the hash table's size,
-- so a short fact and a long fact with common new words took them in different
-- orders. Seen in the benchmark's load (16 writers of new facts); played out
-- step by step in test/facts/vocabulary-race.test.ts. The per-row trigger's
-- words were sorted already (am_near_words), but only by way of its plan; both
-- now say the order. The graph's batch inserts follow the same rule
-- (KEY_ORDER_NOTE in src/graph/sql.ts).
--
-- A transaction that stores several facts in separate statements can still
-- meet another in a cycle; that one is answered "retry", and nothing is written.

create or replace function am_fact_words() returns trigger
  language plpgsql
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select new.scope, x.word, am_word_deletes(x.word)
    from unnest(am_near_words(new.name || E'\n' || new.description || E'\n' || left(new.body, 1000))) as x(word)
   where not exists (select 1 from fact_words v where v.word = x.word and v.scope = new.scope collate "C")
   order by x.word collate "C"
  on conflict do nothing;
  return null;
end $$;

create or replace function am_fact_words_inserted() returns trigger
  language plpgsql
  set enable_seqscan = off
  as $$
begin
  insert into fact_words (scope, word, deletes)
  select w.scope, w.word, am_word_deletes(w.word)
    from (select distinct f.scope, x.word
            from new_facts f
            cross join unnest(am_near_words(f.name || E'\n' || f.description || E'\n' || left(f.body, 1000))) as x(word)) w
   where not exists (select 1 from fact_words v where v.word = w.word and v.scope = w.scope collate "C")
   order by w.word collate "C", w.scope collate "C"
  on conflict do nothing;
  return null;
end $$;
