-- read_graph's total: each scope's entity count, kept as entities are written
-- (statement triggers, whatever the write path: sql/functions/
-- am_graph_entities_added.sql, am_graph_entities_removed.sql), so the total is
-- exact and costs a few rows however many entities the scope holds. Counting
-- the scope's index entries instead cost in proportion to the scope, up to
-- GRAPH_SEARCH_COUNT_MAX, on every page.
-- A scope's count is kept in up to 16 slots, one per database session modulo
-- 16, summed when read: a writer holds its slot's row until it commits, and
-- with one row per scope every writer adding entities to a scope waited for the
-- one before it to commit (16 writers creating one entity each at a time: half
-- the throughput). Existing entities are counted once here, in slot 0.
create table graph_scope_entities (
  scope text not null,
  slot smallint not null,
  entities integer not null,
  primary key (scope, slot)
);
insert into graph_scope_entities (scope, slot, entities)
  select scope, 0, count(*)::int from graph_entities group by scope;

create trigger graph_entities_added after insert on graph_entities
  referencing new table as added for each statement execute function am_graph_entities_added();
create trigger graph_entities_removed after delete on graph_entities
  referencing old table as removed for each statement execute function am_graph_entities_removed();
