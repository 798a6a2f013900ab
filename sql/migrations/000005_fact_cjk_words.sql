-- The words of a fact's Chinese, Japanese and Korean text, which Postgres'
-- parser cannot split (src/facts/cjk-words.ts): written by the service with
-- every version, as lexemes taken whole (array_to_tsvector, no parsing), empty
-- for a fact without such text. search_cjk holds the words of the name,
-- description and body (a keyword's words may be spread over them), and
-- search_cjk_head those of the name and description (where a match ranks
-- first). search_cjk_rules names the rules and dictionary that made them;
-- facts written before, or under other rules, are segmented again by the
-- service at start (src/facts/cjk-backfill.ts), walking the primary key.
-- Adding the columns rewrites nothing (constant defaults).
alter table facts
  add column search_cjk tsvector not null default ''::tsvector,
  add column search_cjk_head tsvector not null default ''::tsvector,
  add column search_cjk_rules text;
create index facts_search_cjk on facts using gin (search_cjk) with (gin_pending_list_limit = '64');

-- The rules whose walk over every fact finished (cjk-backfill.ts): a start under
-- the same rules has nothing to segment.
create table fact_cjk_rules_done (
  rules text primary key,
  finished_at timestamptz not null default now()
);
