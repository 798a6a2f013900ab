-- Word-aware recall (issue 17). Substring matching alone missed "migrations"
-- for a fact about "the database migration", and "flaky test" for "tests are
-- flaky". Each fact now carries full-text vectors kept by Postgres itself
-- (stored generated columns: no trigger to forget, and an import or any other
-- writer keeps them right):
-- - one for name and description (weight 'A'), one for the body ('B'), so
--   that recall can tell where a keyword matched and rank the head higher;
-- - `english` stems prose ("migrations", "migrating" -> migrat); name and
--   description also go through `simple`, which keeps every word as written
--   (identifiers, stop words). The body gets `english` only: the query is
--   stemmed the same way, so identifiers still match, and a second vector of
--   the longest text measurably slowed memory_store (bench/recall-sql.ts).
--   The default parser splits kebab-case names into their words and keeps
--   the whole name.
-- Chinese, Japanese and Korean text has no spaces to split on, so it becomes
-- long single tokens here; recall keeps the trigram index (000002) and its
-- substring match for those. Only the first 100,000 characters of a body are
-- split into words: a tsvector holds at most 1 MB, and a body may be set to
-- hold up to 1,000,000 characters (FACT_BODY_MAX_CHARS, default 16,000); the
-- rest of a longer body is still found by substring.
alter table facts
  add column search_head tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, name || ' ' || description), 'A')
    || setweight(to_tsvector('simple'::regconfig, name || ' ' || description), 'A')
  ) stored,
  add column search_body tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, left(body, 100000)), 'B')
  ) stored;

-- One index over both: recall searches `search_head @@ q or search_body @@ q`
-- (two scans of it, ORed). Two columns rather than one weighted vector so
-- that telling where a keyword matched reads the small head vector first
-- instead of filtering the whole one for every candidate.
create index facts_search_words on facts using gin (search_head, search_body);

-- ORs the per-keyword queries into the one query the index is searched with
-- (`||` on tsquery as an aggregate; Postgres has none built in).
create aggregate am_tsquery_or(tsquery) (sfunc = tsquery_or, stype = tsquery);
