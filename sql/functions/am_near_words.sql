-- Recall's typo lookup (near matches) reads a number of rows bounded by
-- constants, also over facts written to defeat it (security review, open since
-- 000032): the trigram word-similarity lookup's LIMIT counted only the facts
-- that passed the index's recheck, and facts holding a keyword's trigrams apart
-- ("hx zqzq al" for "alphx") were each read and rejected uncounted (3,000 of
-- them and 8 typo keywords: 4.7 s a recall on Postgres).
--
-- Now typos are corrected word by word against a vocabulary, with symmetric
-- deletes (as SymSpell): every index lookup below is exact (GIN array overlap
-- and btree_gin equality are never rechecked), so each LIMIT counts every row
-- the lookup reads (docs/recall.md, "Near matches").
--
-- fact_words: per scope, the distinct words of the text near matches are sought
-- in (name, description, first 1,000 characters of the body): lowercased runs of
-- letters and digits ([[:alnum:]], any script; pg_trgm's idea of a word) of
-- 4-40 characters (am_near_words). `deletes` holds the word itself and every
-- string made by deleting one of its characters (am_word_deletes): a keyword's
-- word w and a vocabulary word v are one edit apart (insert, delete, substitute,
-- swap two adjacent characters) only if their two sets meet, so `deletes &&
-- am_word_deletes(w)` finds every candidate; am_edit1 then checks the distance
-- (a shared delete can also be two edits apart). Maintained by a trigger on
-- facts; words are never deleted (a stale word costs a candidate slot, nothing
-- else; the vocabulary grows with the distinct words ever written in a scope).
--
-- facts_near_words: the words of each fact's near text (the same function), led
-- by the scope, so recall finds the facts holding a correction exactly. It
-- replaces facts_near_trgm (000032), which nothing else used.
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined is planned again on
-- every statement that calls it (each store, in the trigger and in the index
-- expression); PL/pgSQL keeps its plan for the connection. Measured: the
-- trigger cost ~1 ms a stored fact with SQL functions.
create or replace function am_near_words(t text) returns text[]
  language plpgsql immutable strict parallel safe
  as $$
begin
  return (select coalesce(array_agg(distinct w), '{}')
            from regexp_split_to_table(lower(t), '[^[:alnum:]]+') as w
           where char_length(w) between 4 and 40);
end $$;
