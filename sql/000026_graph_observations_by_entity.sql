-- An entity's observations in insertion order (security review follow-up):
-- every graph answer shows an entity's first observations, as many as fit its
-- character budget (src/graph/read-sql.ts observationsOf: entity_id = …
-- order by id limit …). No index gave that order, so Postgres read all of the
-- entity's observations and sorted them before keeping the first few: an
-- entity with 50,000 observations cost every search or open_nodes that showed
-- it 54-65 ms on Postgres and 90-170 ms embedded, and any writer can make one.
-- With this index the answer reads only the observations it shows. It also
-- serves the per-entity counts (totalObservations) by an index-only scan.
create index graph_observations_entity_id on graph_observations (entity_id, id);
