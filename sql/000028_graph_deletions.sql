-- Who deleted what from the knowledge graph (new-user trial: an agent could
-- wipe a shared graph and nobody could tell who; the deleted rows took their
-- "added" activity with them). delete_entities, delete_observations and
-- delete_relations write one row per entity, observation and relation they
-- remove, in the same statement as the delete (src/graph/sql.ts), with the
-- agent who called them. The console's activity feed shows them beside the
-- additions, in the scopes the person may read. An entity's row says how many
-- observations went with it; the relations it took are rows of their own.
create table graph_deletions (
  id bigint generated always as identity primary key,
  scope text not null,
  kind text not null constraint graph_deletions_kind check (kind in ('entity', 'observation', 'relation')),
  -- The entity (for a relation, its "from" end), and what it was: the entity's
  -- type and observation count, the observation's length (never its text: an
  -- observation is often deleted because it held something that must go), or
  -- "type → to".
  subject text not null,
  detail text not null,
  deleted_by bigint not null references agents (id),
  deleted_at timestamptz not null default now()
);

-- The activity feed reads the newest first, by agent when filtered.
create index graph_deletions_deleted_by on graph_deletions (deleted_by, id);
