-- The words of a fact's near text (name, description, first 1,000 characters
-- of the body) that recall corrects typos against: lowercased runs of letters
-- and digits ([[:alnum:]], any script; pg_trgm's idea of a word) of 4-40
-- characters. They feed the per-scope vocabulary (fact_words, through the
-- am_fact_words_inserted trigger) and the facts_near_words index, through which
-- recall finds the facts holding a correction exactly.
--
-- Typos are corrected word by word with symmetric deletes (as SymSpell): a
-- keyword's word w and a vocabulary word v are one edit apart only if their
-- delete sets (am_word_deletes) meet, so `deletes && am_word_deletes(w)` finds
-- every candidate and am_edit1 checks the distance. Every index lookup is
-- exact (GIN array overlap and btree_gin equality are never rechecked), so
-- each LIMIT counts every row a lookup reads, also over facts written to
-- defeat it (docs/recall.md, "Near matches"). Words are never deleted from the
-- vocabulary: a stale word costs a candidate slot, nothing else.
--
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined is planned again on
-- every statement that calls it (each store, in the trigger and in the index
-- expression); PL/pgSQL keeps its plan for the connection.
create or replace function am_near_words(t text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return (select coalesce(array_agg(distinct w), '{}')
            from regexp_split_to_table(lower(t), '[^[:alnum:]]+') as w
           where char_length(w) between 4 and 40);
end $$;
