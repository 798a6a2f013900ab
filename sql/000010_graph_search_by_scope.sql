-- search_nodes matched a query's trigrams over every scope and only then kept
-- the caller's scope (audit finding 6): a query matching 50,000 entities the
-- caller cannot see took 137 ms against 11 ms with none, which tells a caller
-- that hidden data matches, and every search cost grew with the whole
-- database. The trigram indexes now lead with the scope (btree_gin gives text
-- equality a GIN operator class), so one index scan takes only the caller's
-- scope's entries: GIN intersects the scope's posting list with the trigrams'.

create extension if not exists btree_gin;

-- Observations had no scope of their own (only their entity's). A copy, kept
-- equal to the entity's by a foreign key on both columns (entities never
-- change scope), which replaces the key on entity_id alone.
alter table graph_observations add column scope text;
update graph_observations o set scope = e.scope from graph_entities e where e.id = o.entity_id;
alter table graph_observations alter column scope set not null;
create unique index graph_entities_id_scope on graph_entities (id, scope);
alter table graph_observations
  add constraint graph_observations_entity_scope foreign key (entity_id, scope) references graph_entities (id, scope) on delete cascade;
alter table graph_observations drop constraint graph_observations_entity_id_fkey;

-- The same indexes as before (see 000004: pending lists of 256 kB), scope first.
drop index graph_entities_name_trgm;
drop index graph_entities_type_trgm;
drop index graph_observations_content_trgm;
create index graph_entities_scope_name_trgm on graph_entities using gin (scope, name gin_trgm_ops) with (gin_pending_list_limit = 256);
create index graph_entities_scope_type_trgm on graph_entities using gin (scope, entity_type gin_trgm_ops) with (gin_pending_list_limit = 256);
create index graph_observations_scope_content_trgm on graph_observations using gin (scope, content gin_trgm_ops) with (gin_pending_list_limit = 256);

-- As am_graph_match in 000004 (sequential scans off, few rows expected), with
-- the scope inside each branch so that it is part of the index condition.
-- Index scans are off too: otherwise the planner may read the scope's rows
-- through the (scope, id) btree and test every one of them with ILIKE.
drop function am_graph_match(text);
create function am_graph_match(search_scope text, pattern text) returns setof bigint
  language sql stable strict parallel safe
  rows 10
  set enable_seqscan = off
  set enable_indexscan = off
  as $$
    select id from graph_entities where scope = $1 and name ilike $2
    union
    select id from graph_entities where scope = $1 and entity_type ilike $2
    union
    select entity_id from graph_observations where scope = $1 and content ilike $2
  $$;
