// The knowledge graph's writes and export (reads: read-sql.ts): fixed strings
// with typed parameters. Batches travel as parallel arrays through unnest(), so
// a call costs one or a few round trips whatever its size. Names are matched through am_graph_key() (SHA-256 of the
// text), the expression the unique indexes are built on (see am_graph_key).
import { isoTimeSql as ISO } from "../db/sql/iso-time.js";

// KEY_ORDER_NOTE: a batch insert takes each new row's unique-index entry as it
// goes, and holds it to the end of its transaction. Two batches with common
// names in different orders would each wait for the other (a deadlock Postgres
// breaks only after deadlock_timeout, 1 s, by failing one; an immediate retry
// could meet the winner again). So the rows of a batch go in in the order of
// their keys, the same order for every writer, and no two batches can wait on
// each other in a cycle; the ids, drawn before in the caller's order, keep the
// read order the caller gave.

// $1 scope, $2 names, $3 types, $4 agent id, $5 observation → entity ordinal
// (1-based position in $2), $6 observation contents. Ids are drawn in input
// order, so ids (and so read order) follow the caller's order; the rows are
// then inserted in key order (see KEY_ORDER_NOTE). Existing names are skipped
// by the unique index; only the new entities get observations.
export const CREATE_ENTITIES = `
  with input as (
    select n.name, n.entity_type, n.ord, nextval('graph_entities_id_seq') as id
    from (select * from unnest($2::text[], $3::text[]) with ordinality as u(name, entity_type, ord) order by u.ord) n
  ), created as (
    insert into graph_entities (id, scope, name, entity_type, created_by) overriding system value
    select i.id, $1::text, i.name, i.entity_type, $4::bigint from input i order by am_graph_key(i.name)
    on conflict (scope, am_graph_key(name)) do nothing
    returning id, name
  ), observations as (
    insert into graph_observations (entity_id, scope, content, created_by)
    select c.id, $1::text, o.content, $4::bigint
    from unnest($5::int[], $6::text[]) with ordinality as o(entity_ord, content, ord)
    join input i on i.ord = o.entity_ord
    join created c on c.name = i.name
    order by o.ord
    on conflict (entity_id, am_graph_key(content)) do nothing
    returning 1
  )
  select c.name, (select count(*) from observations)::int as observations_added from created c`;

// Import: the entities alone ($1 scope, $2 names, $3 types, $4 each one's
// author, $5 its creation time, null: now), answering the new ones' ids; their
// observations follow once every entity of the batch, new or not, is locked.
// Ids in input order, rows in key order, as in CREATE_ENTITIES.
export const INSERT_ENTITIES = `
  with input as (
    select n.name, n.entity_type, n.created_by, n.created_at, nextval('graph_entities_id_seq') as id
    from (select * from unnest($2::text[], $3::text[], $4::bigint[], $5::timestamptz[]) with ordinality as u(name, entity_type, created_by, created_at, ord) order by u.ord) n
  )
  insert into graph_entities (id, scope, name, entity_type, created_by, created_at) overriding system value
  select i.id, $1::text, i.name, i.entity_type, i.created_by, coalesce(i.created_at, now()) from input i order by am_graph_key(i.name)
  on conflict (scope, am_graph_key(name)) do nothing
  returning id, name`;

// $1 scope, $2 from, $3 to, $4 relation types, $5 agent id. Ids in input
// order, rows in key order, as in CREATE_ENTITIES.
export const CREATE_RELATIONS = `
  with input as (
    select r.from_name, r.to_name, r.relation_type, nextval('graph_relations_id_seq') as id
    from (select * from unnest($2::text[], $3::text[], $4::text[]) with ordinality as u(from_name, to_name, relation_type, ord) order by u.ord) r
  )
  insert into graph_relations (id, scope, from_name, to_name, relation_type, created_by) overriding system value
  select i.id, $1::text, i.from_name, i.to_name, i.relation_type, $5::bigint from input i
  order by am_graph_key(i.from_name), am_graph_key(i.to_name), am_graph_key(i.relation_type)
  on conflict (scope, am_graph_key(from_name), am_graph_key(to_name), am_graph_key(relation_type)) do nothing
  returning from_name, to_name, relation_type`;

// add_observations in one statement: $1 scope, $2 the distinct entity names,
// $3/$4 (entity name, content) pairs in input order, $5 agent id. The named
// entities are row-locked first (in id order, so two calls cannot deadlock
// each other); a concurrent delete_entities then waits, or wins and the entity
// counts as missing. Unless every name was found nothing is inserted, and the
// caller reports the missing one. Already-present texts are skipped by the
// unique index in input order, so the first occurrence wins.
export const ADD_OBSERVATIONS = `
  with locked as materialized (
    select id, name from graph_entities
    where scope = $1::text and am_graph_key(name) = any(am_graph_keys($2::text[]))
    order by id
    for update
  ), complete as (
    select count(*) = cardinality($2::text[]) as ok from locked
  ), inserted as (
    insert into graph_observations (entity_id, scope, content, created_by)
    select l.id, $1::text, o.content, $5::bigint
    from unnest($3::text[], $4::text[]) with ordinality as o(entity_name, content, ord)
    join locked l on l.name = o.entity_name
    where (select ok from complete)
    order by o.ord
    on conflict (entity_id, am_graph_key(content)) do nothing
    returning entity_id, content
  )
  select
    (select coalesce(json_agg(json_build_object('id', id, 'name', name)), '[]'::json) from locked) as entities,
    (select coalesce(json_agg(json_build_array(entity_id, content)), '[]'::json) from inserted) as inserted`;

// Import only needs an entity it did not create to stay put, not to exclude other writers.
export const KEY_SHARE_ENTITIES_BY_NAME = `
  select id, name from graph_entities
  where scope = $1::text and am_graph_key(name) = any(am_graph_keys($2::text[]))
  order by id
  for key share`;

// $1 entity ids, $2 contents, $3 authors, $5 creation times (null: now), all
// parallel; $4 the entities' scope.
// Already-present texts are skipped by the unique index, in input order, so the
// first occurrence wins.
export const INSERT_OBSERVATIONS = `
  insert into graph_observations (entity_id, scope, content, created_by, created_at)
  select o.entity_id, $4::text, o.content, o.created_by, coalesce(o.created_at, now())
  from unnest($1::bigint[], $2::text[], $3::bigint[], $5::timestamptz[]) with ordinality as o(entity_id, content, created_by, created_at, ord)
  order by o.ord
  on conflict (entity_id, am_graph_key(content)) do nothing
  returning entity_id, content`;

// An import's relations: as CREATE_RELATIONS, with each row's author ($5) and
// time ($6, null: now) from the file.
export const IMPORT_RELATIONS = `
  with input as (
    select r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at, nextval('graph_relations_id_seq') as id
    from (select * from unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[]) with ordinality as u(from_name, to_name, relation_type, created_by, created_at, ord) order by u.ord) r
  )
  insert into graph_relations (id, scope, from_name, to_name, relation_type, created_by, created_at) overriding system value
  select i.id, $1::text, i.from_name, i.to_name, i.relation_type, i.created_by, coalesce(i.created_at, now()) from input i
  order by am_graph_key(i.from_name), am_graph_key(i.to_name), am_graph_key(i.relation_type)
  on conflict (scope, am_graph_key(from_name), am_graph_key(to_name), am_graph_key(relation_type)) do nothing
  returning from_name, to_name, relation_type`;

// Every delete also records what it removed and who asked, in the same
// statement (graph_deletions): the console's activity feed shows it.
const RECORD_DELETIONS = (rows: string) => `
  recorded as (
    insert into graph_deletions (scope, kind, subject, detail, deleted_by)
    ${rows}
  )`;
const RELATION_DETAIL = (r: string) => `${r}.relation_type || ' → ' || ${r}.to_name`;

// $1 scope, $2 names, $3 agent, $4 rows one call may remove. Like the
// reference, relations from or to a given name go too, whether or not an
// entity of that name exists. Observations cascade. What the delete would
// remove is known before it starts, from the counts kept per entity and per
// name (graph_relation_ends): past $4 nothing is deleted and `planned` says how much
// it was, so a delete's work is bounded whatever the entities carry.
export const DELETE_ENTITIES = `
  with keys as materialized (
    select am_graph_keys($2::text[]) as k
  ), planned as materialized (
    select coalesce((select sum(e.observation_count) from graph_entities e
        where e.scope = $1::text and am_graph_key(e.name) = any((select k from keys)::bytea[])), 0)
      + coalesce((select sum(t.relations) from graph_relation_ends t
        where t.scope = $1::text and t.name_key = any((select k from keys)::bytea[])), 0) as n
  ), deleted_relations as (
    delete from graph_relations
    where scope = $1::text and (select n from planned) <= $4::int
      and (am_graph_key(from_name) = any((select k from keys)::bytea[]) or am_graph_key(to_name) = any((select k from keys)::bytea[]))
    returning id, from_name, relation_type, to_name
  ), deleted_entities as (
    delete from graph_entities
    where scope = $1::text and (select n from planned) <= $4::int and am_graph_key(name) = any((select k from keys)::bytea[])
    returning id, name, entity_type, observation_count
  ), ${RECORD_DELETIONS(`
    select $1::text, 'entity', d.name, d.entity_type || ', with ' || d.observation_count || case when d.observation_count = 1 then ' observation' else ' observations' end, $3::bigint
      from deleted_entities d
    union all
    select $1::text, 'relation', r.from_name, ${RELATION_DETAIL("r")}, $3::bigint from deleted_relations r`)}
  select (select n from planned)::int as planned,
    (select count(*) from deleted_entities)::int as entities,
    (select count(*) from deleted_relations)::int as relations,
    (select coalesce(sum(observation_count), 0) from deleted_entities)::int as observations`;

// $1 scope, $2 entity names, $3 contents (parallel pairs), $4 agent.
export const DELETE_OBSERVATIONS = `
  with deleted as (
    delete from graph_observations o
    using graph_entities e, unnest($2::text[], $3::text[]) as d(entity_name, content)
    where e.scope = $1::text
      and am_graph_key(e.name) = am_graph_key(d.entity_name)
      and o.entity_id = e.id
      and am_graph_key(o.content) = am_graph_key(d.content)
    returning e.name, o.content
  ), ${RECORD_DELETIONS(`select $1::text, 'observation', d.name, 'an observation of ' || char_length(d.content) || ' characters', $4::bigint from deleted d`)}
  select count(*)::int as n from deleted`;

// $1 scope, $2 from, $3 to, $4 relation types (parallel triples), $5 agent.
export const DELETE_RELATIONS = `
  with deleted as (
    delete from graph_relations r
    using unnest($2::text[], $3::text[], $4::text[]) as d(from_name, to_name, relation_type)
    where r.scope = $1::text
      and am_graph_key(r.from_name) = am_graph_key(d.from_name)
      and am_graph_key(r.to_name) = am_graph_key(d.to_name)
      and am_graph_key(r.relation_type) = am_graph_key(d.relation_type)
    returning r.from_name, r.relation_type, r.to_name
  ), ${RECORD_DELETIONS(`select $1::text, 'relation', d.from_name, ${RELATION_DETAIL("d")}, $5::bigint from deleted d`)}
  select count(*)::int as n from deleted`;

// Reads of several statements run in one snapshot, so entities, observations and
// relations agree (export, read_graph).
export const READ_SNAPSHOT = `set transaction isolation level repeatable read, read only`;

// The scopes holding entities or relations (a whole export): each a skip scan
// of the scope-led indexes, one probe per scope, not a read of every row.
export const GRAPH_SCOPES = `
  with recursive entity_scopes(scope) as (
    (select scope from graph_entities order by scope limit 1)
    union all
    select (select e.scope from graph_entities e where e.scope > s.scope order by e.scope limit 1) from entity_scopes s where s.scope is not null
  ), relation_scopes(scope) as (
    (select scope from graph_relations order by scope limit 1)
    union all
    select (select r.scope from graph_relations r where r.scope > s.scope order by r.scope limit 1) from relation_scopes s where s.scope is not null
  )
  select scope from entity_scopes where scope is not null
  union
  select scope from relation_scopes where scope is not null
  order by scope`;

// Export: keyset pages in insertion order. $1 scope, $2 after id, $3 page size.
// The scope's rows from the cursor on, as a range of (scope, id) in that order,
// so that only the scope_id index gives the order (am_graph_page.sql says why
// "scope = …" ordered by id can walk the primary key past other scopes).
export const EXPORT_ENTITIES = `
  select e.id, e.name, e.entity_type, a.name as created_by, ${ISO("e.created_at")} as created_at,
    coalesce((select array_agg(o.content order by o.id) from graph_observations o where o.entity_id = e.id), '{}') as observations,
    coalesce((select array_agg(oa.name order by o.id) from graph_observations o join agents oa on oa.id = o.created_by where o.entity_id = e.id), '{}') as observation_authors,
    coalesce((select array_agg(${ISO("o.created_at")} order by o.id) from graph_observations o where o.entity_id = e.id), '{}') as observation_times
  from graph_entities e
  join agents a on a.id = e.created_by
  where (e.scope, e.id) > ($1::text, $2::bigint) and e.scope <= $1::text
  order by e.scope, e.id
  limit $3::int`;

export const EXPORT_RELATIONS = `
  select r.id, r.from_name, r.to_name, r.relation_type, a.name as created_by, ${ISO("r.created_at")} as created_at
  from graph_relations r
  join agents a on a.id = r.created_by
  where (r.scope, r.id) > ($1::text, $2::bigint) and r.scope <= $1::text
  order by r.scope, r.id
  limit $3::int`;
