-- ORs the per-keyword queries into the one query the index is searched with
-- (`||` on tsquery as an aggregate; Postgres has none built in).
create or replace aggregate am_tsquery_or(tsquery) (sfunc = tsquery_or, stype = tsquery);
