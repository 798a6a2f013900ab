// The graph's reads, each cut at a character budget inside Postgres: only what
// the answer shows leaves the database. The reads that build entity pages are
// functions of sql/functions/ (am_graph_search, am_graph_open, am_graph_page,
// and am_graph_entities and am_graph_relations_touching, which they share):
// each keeps its plans per connection, on both databases. The rest are fixed
// strings with typed parameters.
import { isoTimeSql as ISO } from "../db/sql/iso-time.js";

/** How many entities scope $1 holds (kept as entities are written, in a few slots: graph_scope_entities). */
export const SCOPE_ENTITY_COUNT = `select coalesce(sum(entities), 0)::int as n from graph_scope_entities where scope = $1::text`;

/** read_graph's page of entities: $1 scope, $2 limit, $3 offset, $4 budget (am_graph_page). */
export const GRAPH_PAGE = `select am_graph_page($1::text, $2::int, $3::int, $4::int) as r`;

/**
 * search_nodes (am_graph_search): $1 scope, $2 escaped '%…%' pattern, $3 limit,
 * $4 offset (past the cursor, when there is one), $5 entity budget, $6 relation
 * budget, $7 count cap, $8 the entity id to start after (0, or a cursor's), $9
 * the most entities one call's walk tests, $10 the observation of entity $8 to
 * resume after (0: none), $11 whether the query has a trigram of its own, $12
 * whether a scope larger than one call's walk is walked whatever the query.
 */
export const GRAPH_SEARCH = `select am_graph_search($1::text, $2::text, $3::int, $4::int, $5::int, $6::int, $7::int, $8::bigint, $9::int, $10::bigint, $11::boolean, $12::boolean) as r`;

/** open_nodes (am_graph_open): $1 scope, $2 names, $3 entity budget, $4 relation budget, $5 count cap. */
export const GRAPH_OPEN = `select am_graph_open($1::text, $2::text[], $3::int, $4::int, $5::int) as r`;

// read_observations: one entity's observations from an offset, and how many it
// has (kept as rows are written). $1 scope, $2 name, $3 offset, $4 limit, $5
// budget. No row: no such entity. Ordered by (entity_id, id), the index's own
// order (am_graph_entities.sql says why not by id alone).
export const ENTITY_OBSERVATIONS = `
  with ent as (
    select e.id, e.name, e.entity_type, e.observation_count from graph_entities e
    where e.scope = $1::text and am_graph_key(e.name) = am_graph_key($2::text)
  ), sel as (
    select o.id, o.content, o.created_by, o.created_at,
      sum(char_length(o.content) + am_graph_frame('observation')) over (order by o.id) - (char_length(o.content) + am_graph_frame('observation')) as at
    from (
      select o.* from graph_observations o where o.entity_id = (select id from ent)
      order by o.entity_id, o.id offset $3::int limit least($4::int, $5::int / am_graph_frame('observation') + 1)
    ) o
  )
  select ent.name, ent.entity_type, ent.observation_count as counted,
    coalesce((select json_agg(s.content order by s.id) from sel s where s.at < $5::int), '[]'::json) as observations,
    coalesce((select json_agg(json_build_object('createdBy', a.name, 'createdAt', ${ISO("s.created_at")}) order by s.id)
      from sel s join agents a on a.id = s.created_by where s.at < $5::int), '[]'::json) as meta
  from ent`;

/**
 * Scopes other than $1 that hold entities, with how many: every scope when $2,
 * else those of $3 (the caller's readable ones); at most $4, in name order. One
 * walk of graph_scope_entities' primary key that stops at the limit.
 */
export const OTHER_SCOPE_COUNTS = `
  select scope, sum(entities)::int as entities from graph_scope_entities
  where scope <> $1::text and am_in_scopes(scope, $2::boolean, $3::text[])
  group by scope having sum(entities) > 0 order by scope limit $4::int`;

/** How many of the names $2 scope $1 holds: one lookup of graph_entities_scope_name per name. */
export const NAMES_IN_SCOPE = `
  select count(*)::int as n from graph_entities
  where scope = $1::text and am_graph_key(name) = any(am_graph_keys($2::text[]))`;
