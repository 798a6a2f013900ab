-- Short GIN pending lists for the facts' search indexes (issues 15 and 17).
--
-- With fastupdate (the default) a new fact's index entries go to the index's
-- pending list, and every search reads that whole list before the index
-- proper; it is merged into the index only when it outgrows
-- gin_pending_list_limit (default 4 MB) or when (auto)vacuum runs. Recall and
-- the duplicate warning therefore paid for every fact stored since the last
-- merge: at 100,000 facts, 54 pending pages added 2.2 ms to a duplicate lookup
-- (3.6 → 1.4 ms) and 123 added 0.8 ms to a recall of a rare keyword
-- (1.46 → 0.65 ms, pgbench).
--
-- Measured while storing facts one by one into 100,000 (30 Nov 2026,
-- /work/exp/pending.mts, two rounds; p50 ms):
--
--   pending list   insert   recall (rare word)   duplicate lookup
--   4 MB           1.0-1.2  2.9-3.0              3.0-3.7
--   256 kB         0.8-1.0  1.3-1.6              1.0-1.2
--   64 kB          0.8-1.0  1.1-1.3              0.7-0.8
--   fastupdate off 2.2-3.0  1.1-1.4              0.6-0.7
--
-- 64 kB (the smallest allowed) keeps searches as fast as with no pending list
-- and stores as fast as with the default; the merge happens more often, in
-- smaller pieces, so an occasional store pays for it (insert p99 7-9 ms
-- instead of 3-5 ms). Turning fastupdate off instead would add 1-2 ms to every
-- store (a fact's text makes hundreds of trigram entries).
alter index facts_search_trgm set (gin_pending_list_limit = 64);
alter index facts_head_trgm set (gin_pending_list_limit = 64);
alter index facts_search_words set (gin_pending_list_limit = 64);
