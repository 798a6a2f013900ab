-- What one entity may carry (am_graph_max_observations, am_graph_max_relations):
-- each entity keeps its observation count, and graph_relation_ends the relation
-- count of each name (a relation's ends are names, which need not be entities).
-- Statement triggers keep both as rows are written, whatever the write path, and
-- refuse a write past a bound (sql/functions/am_graph_observations_added.sql,
-- am_graph_relations_added.sql); delete_entities reads them to know up front what
-- it would remove. Existing rows are counted once here.

alter table graph_entities add column observation_count integer not null default 0;
update graph_entities e set observation_count = c.n
  from (select entity_id, count(*)::int as n from graph_observations group by entity_id) c
  where e.id = c.entity_id;

create table graph_relation_ends (
  scope text not null,
  name_key bytea not null,
  relations integer not null,
  primary key (scope, name_key)
);
insert into graph_relation_ends (scope, name_key, relations)
  select scope, k, count(*)::int from (
    select id, scope, am_graph_key(from_name) as k from graph_relations
    union
    select id, scope, am_graph_key(to_name) from graph_relations) ends
  group by scope, k;

create trigger graph_observations_added after insert on graph_observations
  referencing new table as added for each statement execute function am_graph_observations_added();
create trigger graph_observations_removed after delete on graph_observations
  referencing old table as removed for each statement execute function am_graph_observations_removed();
create trigger graph_relations_added after insert on graph_relations
  referencing new table as added for each statement execute function am_graph_relations_added();
create trigger graph_relations_removed after delete on graph_relations
  referencing old table as removed for each statement execute function am_graph_relations_removed();
