-- The knowledge graph (compatible with @modelcontextprotocol/server-memory):
-- entities with a type and ordered observations, and directed typed relations
-- between entity names, each graph living in a scope. Every row records which
-- agent created it and when.

-- Names, types and observation texts may be a few thousand characters (the
-- service caps them, GRAPH_TEXT_MAX_CHARS), which does not fit a btree entry
-- (about 2.7 kB). Unique keys and equality lookups therefore use a SHA-256 of
-- the text's UTF-8 bytes. Getting those bytes with only immutable functions (so
-- the function can be inlined and indexed): decode(…, 'escape') copies every byte
-- except backslash sequences, so doubling each backslash first makes it the
-- identity. (text::bytea would parse escapes; convert_to and textsend are only
-- "stable".)
create function am_graph_key(t text) returns bytea
  language sql immutable strict parallel safe
  as $$ select sha256(decode(replace(t, '\', '\\'), 'escape')) $$;

create function am_graph_keys(ts text[]) returns bytea[]
  language sql immutable strict parallel safe
  as $$ select coalesce(array_agg(am_graph_key(t)), '{}') from unnest(ts) as t $$;

-- A generous hard ceiling under the configurable limit, so even a
-- misconfigured service cannot store megabyte names.
create function am_graph_text_ok(t text, allow_empty boolean) returns boolean
  language sql immutable strict parallel safe
  as $$ select char_length(t) <= 1000000 and (allow_empty or char_length(t) > 0) $$;

create table graph_entities (
  id bigint generated always as identity primary key,
  scope text not null
    constraint graph_entities_scope_valid check (scope <> '*' and am_valid_scope(scope)),
  name text not null
    constraint graph_entities_name_valid check (am_graph_text_ok(name, false)),
  entity_type text not null
    constraint graph_entities_type_valid check (am_graph_text_ok(entity_type, true)),
  created_by bigint not null references agents (id),
  created_at timestamptz not null default now()
);

-- One entity per name in a scope; `on conflict do nothing` relies on it.
create unique index graph_entities_scope_name on graph_entities (scope, am_graph_key(name));

create table graph_observations (
  id bigint generated always as identity primary key,
  -- Observations belong to their entity: deleting the entity deletes them.
  entity_id bigint not null references graph_entities (id) on delete cascade,
  content text not null
    constraint graph_observations_content_valid check (am_graph_text_ok(content, true)),
  created_by bigint not null references agents (id),
  created_at timestamptz not null default now()
);

-- An observation text is stored once per entity; this index also serves
-- "observations of these entities" (entity_id leads).
create unique index graph_observations_entity_content on graph_observations (entity_id, am_graph_key(content));

-- Relations refer to entity names, not ids: the reference server accepts a
-- relation whose endpoints do not exist (yet), and keeps relations apart from
-- entities in its file. delete_entities removes relations by name.
create table graph_relations (
  id bigint generated always as identity primary key,
  scope text not null
    constraint graph_relations_scope_valid check (scope <> '*' and am_valid_scope(scope)),
  from_name text not null
    constraint graph_relations_from_valid check (am_graph_text_ok(from_name, false)),
  to_name text not null
    constraint graph_relations_to_valid check (am_graph_text_ok(to_name, false)),
  relation_type text not null
    constraint graph_relations_type_valid check (am_graph_text_ok(relation_type, true)),
  created_by bigint not null references agents (id),
  created_at timestamptz not null default now()
);

create unique index graph_relations_key
  on graph_relations (scope, am_graph_key(from_name), am_graph_key(to_name), am_graph_key(relation_type));
-- "Relations touching these names" (open_nodes, search_nodes, delete_entities):
-- the unique key serves the `from` side, this one the `to` side.
create index graph_relations_to on graph_relations (scope, am_graph_key(to_name));

-- Substring search (search_nodes uses ILIKE '%query%'): trigram indexes let
-- queries of three or more characters avoid scanning every row. A row adds
-- dozens of trigram entries; inserting them one by one (fastupdate off) made a
-- batch of 100 entities with 300 observations about ten times slower, so new
-- entries go to GIN's pending list, which every search also has to read. A
-- 256 kB list (default 4 MB) keeps that read short: measured at 50,000
-- entities, right after loading them, searches took 4-8 ms instead of 7-12 ms
-- for a load about 15% slower.
create index graph_entities_name_trgm on graph_entities using gin (name gin_trgm_ops) with (gin_pending_list_limit = 256);
create index graph_entities_type_trgm on graph_entities using gin (entity_type gin_trgm_ops) with (gin_pending_list_limit = 256);
create index graph_observations_content_trgm on graph_observations using gin (content gin_trgm_ops) with (gin_pending_list_limit = 256);

-- The ids of entities whose name, type or an observation matches an ILIKE
-- pattern (search_nodes). The planner underrates the CPU cost of ILIKE and, on
-- small or freshly loaded tables (GIN pending lists inflate index cost
-- estimates), prefers reading every row to the trigram indexes. For a pattern
-- with at least one trigram the index is never the worse choice, so this
-- function plans its query with sequential scans off; each branch has one ILIKE
-- and nothing else, so its only index path is that column's trigram index. The
-- service calls it only for queries of three or more characters.
create function am_graph_match(pattern text) returns setof bigint
  language sql stable strict parallel safe
  -- Searches usually match a few entities; the default estimate (1000 rows)
  -- would talk the planner into reading all entities to join them.
  rows 10
  set enable_seqscan = off
  as $$
    select id from graph_entities where name ilike $1
    union
    select id from graph_entities where entity_type ilike $1
    union
    select entity_id from graph_observations where content ilike $1
  $$;

-- Paging a scope's graph in insertion order (read_graph, export).
create index graph_entities_scope_id on graph_entities (scope, id);
create index graph_relations_scope_id on graph_relations (scope, id);

-- Vacuum also empties the GIN pending lists: do it after every ~1% of new rows
-- (default 20%), so searches of a graph that grew in a burst soon read no long
-- pending list.
alter table graph_entities set (autovacuum_vacuum_insert_scale_factor = 0.01);
alter table graph_observations set (autovacuum_vacuum_insert_scale_factor = 0.01);
