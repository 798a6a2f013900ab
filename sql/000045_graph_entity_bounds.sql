-- What one entity may carry: at most am_graph_max_observations() observations,
-- and at most am_graph_max_relations() relations from or to one name (a
-- relation's ends are names, which need not be entities). Without a bound, one
-- agent's 35 calls built an entity whose delete_entities ran into the
-- statement timeout on every try and held the embedded database's only
-- connection meanwhile.
--
-- The counts are kept as rows are written, by statement triggers, so every
-- write path (tools, import) keeps them and a check costs one row per entity or
-- name, never a count of what it holds. The check sits in the trigger, after the
-- count's row is locked, so writers racing for one entity or name cannot pass
-- the bound together. A write past a bound fails whole (nothing is written)
-- with constraint graph_entity_observations_max or graph_name_relations_max and
-- a JSON detail {scope, name, count, limit}; the store turns it into a message.

create function am_graph_max_observations() returns integer
  language sql immutable parallel safe as $$ select 1000 $$;
create function am_graph_max_relations() returns integer
  language sql immutable parallel safe as $$ select 1000 $$;

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

create function am_graph_observations_added() returns trigger
  language plpgsql as $$
declare
  over record;
begin
  -- Entities in id order, the order add_observations locks them in.
  update graph_entities e set observation_count = e.observation_count + a.n
    from (select entity_id, count(*)::int as n from added group by entity_id) a
    where e.id = a.entity_id;
  select e.scope, e.name, e.observation_count as count into over
    from graph_entities e
    where e.id in (select entity_id from added) and e.observation_count > am_graph_max_observations()
    order by e.id limit 1;
  if found then
    raise exception 'entity "%" would carry % observations; the limit is %', over.name, over.count, am_graph_max_observations()
      using errcode = 'check_violation', constraint = 'graph_entity_observations_max',
        detail = json_build_object('scope', over.scope, 'name', over.name, 'count', over.count, 'limit', am_graph_max_observations())::text;
  end if;
  return null;
end $$;

create function am_graph_observations_removed() returns trigger
  language plpgsql as $$
begin
  -- (An entity deleted with its observations is gone already: nothing to update.)
  update graph_entities e set observation_count = e.observation_count - r.n
    from (select entity_id, count(*)::int as n from removed group by entity_id) r
    where e.id = r.entity_id;
  return null;
end $$;

create trigger graph_observations_added after insert on graph_observations
  referencing new table as added for each statement execute function am_graph_observations_added();
create trigger graph_observations_removed after delete on graph_observations
  referencing old table as removed for each statement execute function am_graph_observations_removed();

-- A relation counts once for each distinct name it touches (a relation from a
-- name to itself, once).
create function am_graph_relations_added() returns trigger
  language plpgsql as $$
declare
  over record;
begin
  -- In (scope, key) order for every writer (see KEY_ORDER_NOTE in src/graph/sql.ts).
  insert into graph_relation_ends as t (scope, name_key, relations)
    select scope, k, count(*)::int from (
      select id, scope, am_graph_key(from_name) as k from added
      union
      select id, scope, am_graph_key(to_name) from added) ends
    group by scope, k
    order by scope collate "C", k
  on conflict (scope, name_key) do update set relations = t.relations + excluded.relations;
  select a.scope, a.name, t.relations as count into over
    from (select scope, name, am_graph_key(name) as k from (
      select scope, from_name as name from added union select scope, to_name from added) n) a
    join graph_relation_ends t on t.scope = a.scope and t.name_key = a.k
    where t.relations > am_graph_max_relations()
    limit 1;
  if found then
    raise exception 'name "%" would have % relations; the limit is %', over.name, over.count, am_graph_max_relations()
      using errcode = 'check_violation', constraint = 'graph_name_relations_max',
        detail = json_build_object('scope', over.scope, 'name', over.name, 'count', over.count, 'limit', am_graph_max_relations())::text;
  end if;
  return null;
end $$;

create function am_graph_relations_removed() returns trigger
  language plpgsql as $$
begin
  update graph_relation_ends t set relations = t.relations - e.n
    from (
      select scope, k, count(*)::int as n from (
        select id, scope, am_graph_key(from_name) as k from removed
        union
        select id, scope, am_graph_key(to_name) from removed) ends
      group by scope, k) e
    where t.scope = e.scope and t.name_key = e.k;
  -- A name without relations leaves no row behind.
  delete from graph_relation_ends t
    where t.relations <= 0 and (t.scope, t.name_key) in (
      select scope, am_graph_key(from_name) from removed union select scope, am_graph_key(to_name) from removed);
  return null;
end $$;

create trigger graph_relations_added after insert on graph_relations
  referencing new table as added for each statement execute function am_graph_relations_added();
create trigger graph_relations_removed after delete on graph_relations
  referencing old table as removed for each statement execute function am_graph_relations_removed();
