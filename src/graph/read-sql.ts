// The graph's reads, each cut at a character budget inside Postgres (see
// bounds.ts): only what the answer shows leaves the database. Fixed strings with
// typed parameters; the builders below only splice in other constants.
import { ENTITY_FRAME_CHARS as E, OBSERVATION_FRAME_CHARS as O, RELATION_FRAME_CHARS as R } from "./bounds.js";

// Timestamps in the form of JS toISOString().
import { isoTimeSql as ISO } from "../db/iso-time.js";
import { COMPLETE, MATCH_TOTAL, MATCHED_ROWS, searchMatch, WALK_CUT, WALK_CUT_OBSERVATION } from "./search-sql.js";

/**
 * The scope's entities counted up to offset $2 + $3 + 1 (read_graph's total:
 * exact up to $2 + $3, "at least" past it; counted from the start, so a page
 * past the end still gets the exact total). Counting every entity grew with
 * the scope (an index-only scan of all its entries) on every page.
 */
export const COUNT_ENTITIES = `select count(*)::int as n from (
    select 1 from graph_entities where scope = $1::text limit $2::int + $3::int + 1) x`;

// The observations of `entity` in insertion order, at most as many as could fit
// in `budget` (each costs at least O), with their size. `gate` skips the read
// for an entity the answer has no room for.
// An entity's observations in insertion order, written as a range of
// graph_observations_entity_id (entity_id, id) ordered by that whole key, not as
// "entity_id = …" ordered by id: with the equality Postgres takes the entity as
// a constant, sees id order in the primary key too, and where one entity holds
// most of the table (its statistics then say any entity does) it walks the
// primary key and filters every other entity's rows out: 200,000 rows read to
// show an entity with none. The range has no such reading; the same trick as
// the walk's (search-sql.ts).
const OF_ENTITY = (entity: string) =>
  `(o.entity_id, o.id) > (${entity}, 0::bigint) and (o.entity_id, o.id) < (${entity}, 9223372036854775807::bigint)`;
const observationsOf = (entity: string, budget: string, gate = "true") => `(
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + ${O} as cost
      from graph_observations o where ${OF_ENTITY(entity)} and ${gate}
      order by o.entity_id, o.id limit ${budget}::int / ${O} + 1)`;

/**
 * From a `page` CTE (id, name, entity_type, created_by, created_at) to `kept`,
 * the entities shown, within `budget` characters in answer order: entity, its
 * observations, next entity. Paged reads (keepAll false) end the page before
 * the first entity that does not fit whole, except the page's first, which is
 * always shown; open_nodes (keepAll true) shows every entity. `before` is what
 * the answer holds ahead of an entity: entitiesJson shows its observations while
 * the budget lasts, and the item that crosses it, so every answer makes
 * progress. No joins between CTEs: their row estimates multiply, and a plan
 * that looks expensive gets JIT-compiled, which alone took ~0.6 s.
 * `total_obs` counts each entity's observations up to `countCap` + 1, or one
 * more than the answer could show if that is more (observationCountCap in
 * bounds.ts; past it: "at least"): a full count read all of an entity's index
 * entries on every read that showed it (200,000 observations: ~150 ms embedded).
 */
const entityPart = (budget: string, keepAll: boolean, countCap: string) => `
  sized as (
    select p.*, char_length(p.name) + char_length(p.entity_type) + ${E} as head, coalesce(c.cost, 0) as body
    from page p cross join lateral (select sum(o.cost) as cost from ${observationsOf("p.id", budget)} o) c
  ), run as (
    select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
    from sized s
  ), kept as materialized (
    select r.*, r.upto - r.head - r.body as before,
      (select count(*) from (select 1 from graph_observations o where ${OF_ENTITY("r.id")} order by o.entity_id, o.id
        limit greatest(${countCap}::int, ${budget}::int / ${O} + 1) + 1) c)::int as total_obs
    from run r
    where ${keepAll ? "true" : `r.ord = 1 or r.upto <= ${budget}::int`}
  )`;

/**
 * The entities shown, as JSON in the reference's key order, each with the
 * observations that start before the budget is spent; totalObservations is
 * removed by the store unless they were cut.
 */
const entitiesJson = (budget: string, provenance: boolean) => `coalesce((select json_agg(json_build_object(
    'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
    'totalObservations', k.total_obs${
      provenance
        ? `, 'createdBy', k.created_by, 'createdAt', ${ISO("k.created_at")}, 'observationsMeta', coalesce(g.meta, '[]'::json)`
        : ""
    }) order by k.id)
    from kept k left join lateral (
      select json_agg(x.content order by x.id) as observations${
        provenance ? `, json_agg(json_build_object('createdBy', a.name, 'createdAt', ${ISO("x.created_at")}) order by x.id) as meta` : ""
      }
      from (
        select o.*, sum(o.cost) over (order by o.id) - o.cost as at
        from ${observationsOf("k.id", budget, `k.before + k.head < ${budget}::int`)} o
      ) x${provenance ? " join agents a on a.id = x.created_by" : ""}
      where k.before + k.head + x.at < ${budget}::int
    ) g on true), '[]'::json)`;

// A page holds at most as many entities as could fit in `budget` (each costs at
// least E; the first is always shown): reading more would only compute the
// sizes of entities the answer then leaves out (read_graph at 1,000 entities
// sized all 1,000 to show ~250).
const pageLimit = (limit: string, budget: string) => `least(${limit}, ${budget}::int / ${E} + 1)`;

const RELATION_COST = `char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + ${R}`;

// The relations of one kept entity `k` on one side, through the (scope, key,
// id) indexes, so that a LIMIT stops the scan: in id order (`ordered`, for the
// relations shown) or in any order (for counting them). In id order the name is
// a closed range of the key, not an equality: with "key = …" the planner takes
// the key for a constant, sees id order in the primary key too, and where one
// name holds most relations it walked the primary key, filtering every other
// name's relations out (200,000 rows read to show an entity with none); as a
// range the key stays in the sort order, which only (scope, key, id) yields.
// The scope is an equality before it: a btree scan stops at the end of the
// range only when the range's column directly follows the equalities (written
// as a row comparison over (scope, key, id), the scan read on to the end of the
// scope for every entity shown: open_nodes of five names 9 → 89 ms at 5,000
// entities of one relation each, 1.2 s at 50,000).
const endpointOfKept = (column: string, limit: string, ordered: boolean) => {
  const key = `am_graph_key(r.${column})`;
  const at = `am_graph_key(k.name)`;
  return ordered
    ? `(select r.id from graph_relations r
        where r.scope = $1::text and ${key} >= ${at} and ${key} <= ${at} and r.${column} = k.name
        order by ${key}, r.id limit ${limit})`
    : `(select r.id from graph_relations r
        where r.scope = $1::text and ${key} = ${at} and r.${column} = k.name
        limit ${limit})`;
};
const touchingKept = (limit: string, ordered: boolean) => `select x.id from kept k cross join lateral (
      ${endpointOfKept("from_name", limit, ordered)}
      union all
      ${endpointOfKept("to_name", limit, ordered)}) x`;

/**
 * `rshown`: the relations touching the entities shown (`kept`), in insertion
 * order, within `budget` characters (the crossing one still shown). Only as
 * many rows as could fit are read: each entity's first that many on each side
 * (every relation costs at least R), and the first that many of those. A hub
 * with 200,000 relations had all of them collected and sorted by every
 * open_nodes or search_nodes that showed it (~1.1 s embedded).
 */
const keptRelationsPart = (budget: string) => `
  rsel as (
    select distinct t.id from (${touchingKept(`${budget}::int / ${R} + 1`, true)}) t
    order by t.id limit ${budget}::int / ${R} + 1
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(${RELATION_COST}) over (order by r.id) - (${RELATION_COST}) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < ${budget}::int
  )`;

/**
 * The relations touching the entities shown, counted up to `countCap` + 1, or
 * one more than the answer could show if that is more (relationCountCap in
 * bounds.ts; past it: "at least"). A relation between two entities shown (or
 * from an entity to itself) is met twice, so at most twice that many rows are
 * read, per entity and side in any order: when that many were read, more than
 * the cap of them are distinct.
 */
const keptRelationsTotal = (countCap: string, budget: string) => {
  const rows = `2 * (greatest(${countCap}::int, ${budget}::int / ${R} + 1) + 1)`;
  return `(select count(distinct t.id) from (${touchingKept(rows, true)} limit ${rows}) t)::int`;
};

const relationsJson = (provenance: boolean) => `coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type${
      provenance ? `, 'createdBy', a.name, 'createdAt', ${ISO("x.created_at")}` : ""
    }) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json)`;

// The keys of the names in $2, computed once per call as an init plan. The
// services run these reads as prepared statements (read.ts), and Postgres keeps
// a statement's generic plan only if it looks no dearer than the custom plans;
// a custom plan folds the keys into a constant array of known length, a generic
// one guesses ten elements, so every custom plan looked cheaper and was planned
// anew on each call (open_nodes: 5 names, the same plan either way). Through an
// init plan both see the same unknown array and the generic plan is kept.
const NAME_KEYS = `(select am_graph_keys($2::text[]))::bytea[]`;

// read_graph's page of entities: $1 scope, $2 limit, $3 offset, $4 entity
// budget, $5 count cap (each entity's observations).
export const READ_GRAPH_PAGE = `
  with page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, null::text as created_by
    from graph_entities e
    where e.scope = $1::text
    order by e.id
    limit ${pageLimit("$2::int", "$4")} offset $3::int
  ), ${entityPart("$4", false, "$5")}
  select ${entitiesJson("$4", false)} as entities`;

// search_nodes in one statement (one round trip, one snapshot): $1 scope, $2
// escaped '%…%' pattern, $3 limit, $4 offset (past the cursor, when there is
// one), $5 entity budget, $6 relation budget, $7 count cap, $8 the entity id
// to start after (0, or a cursor's), $9 the walk's steps at most, $10 the
// observation of entity $8 to resume after (0: none). Which
// entities match, and how much of that is counted, is search-sql.ts's part;
// the page is cut from those matches in id order.
// `total`: matches counted (exact up to the cap, at least that many beyond);
// `matched`: matches found, more than offset + shown when another page follows;
// `complete`: the lists held every match; `walked_to`: where a walk stopped at
// its bound before the page was complete (a cursor resumes after it), and
// `walked_obs` the observation inside it where it stopped, if it did;
// `last_id`: the last entity shown (the next page's cursor).
// Relations: those touching the entities shown.
const searchNodes = (indexed: boolean) => `
  with recursive ${searchMatch(indexed, `$4::int + ${pageLimit("$3::int", "$5")}`)}, page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, null::text as created_by
    from graph_entities e
    where e.id = any(array(select id from matched order by id limit ${pageLimit("$3::int", "$5")} offset $4::int))
      and e.scope = $1::text
  ), ${entityPart("$5", false, "$7")}, ${keptRelationsPart("$6")}
  select ${MATCH_TOTAL} as total, ${MATCHED_ROWS} as matched, ${COMPLETE} as complete, ${WALK_CUT} as walked_to, ${WALK_CUT_OBSERVATION} as walked_obs,
    (select max(k.id) from kept k) as last_id, ${entitiesJson("$5", false)} as entities,
    ${relationsJson(false)} as relations, ${keptRelationsTotal("$7", "$6")} as total_relations`;

/** Queries of three or more characters: the lists go through the trigram indexes. */
export const SEARCH_NODES = searchNodes(true);
/** Shorter queries: no trigram to look up. */
export const SEARCH_NODES_SHORT = searchNodes(false);
// Whether the scope holds more than $12 entities or $13 observations: of the
// first limit + 1 rows from the scope's start in (scope, id) / (scope,
// entity_id, id) order, whether all are the scope's. At most that many index
// entries whatever the scope holds. Written as the walk's ranges are
// (search-sql.ts): a row comparison ordered by the whole key, with the scope
// as an init plan's value. With "scope = $1" Postgres served the order from
// graph_observations_entity_id (entity_id, id), testing the scope as a filter
// on every scope's rows; seeing the scope, it read all the rows from the
// scope's start on through a bitmap and sorted them (3,040 for a limit of 301).
const scopeAbove = (table: string, key: string, start: string, limit: string) =>
  `(select count(*) filter (where r.scope = (select $1::text)) from (select t.scope from ${table} t
      where (${key}) > ((select $1::text), ${start}) order by ${key} limit ${limit} + 1) r) > ${limit}`;

/**
 * How the store runs them: through am_search_nodes (sql/000024), which holds
 * both statements, runs them without sequential scans and keeps one generic
 * plan of each per connection, in one round trip. $1-$10 as above, $11 true
 * for SEARCH_NODES (the query has a trigram of its own). One row: the
 * statement's columns as one JSON object.
 *
 * The trigram indexes serve only a scope of at most $12 entities and $13
 * observations (one call's walk: GRAPH_SEARCH_SCAN_MAX and twice as many);
 * a larger scope is walked, a bounded part per call, whatever the query
 * (security audit: "ipsum lorem" over 600,000 observations of "observation N
 * lorem ipsum", 60 calls of an agent's own writes, took ~0.8-1.2 s per call on
 * Postgres and 2.6 s through the embedded database's one connection). A GIN
 * lookup is a bitmap scan: it reads the scope's whole posting list and those
 * of the query's trigrams and then rechecks every candidate on the heap, and no
 * LIMIT stops it (measured at 600,000: bitmap alone 140-210 ms, recheck the
 * rest; ANDed with an id range of 10,000 rows, or with the id as a btree_gin
 * column of the index, still 60-170 ms and growing with the scope). In a scope
 * of at most $12 + $13 rows the bitmap scan skips through other scopes' entries
 * and rechecks at most that many rows: bounded as one call's walk is.
 * With $12 and $13 null (GRAPH_SEARCH_WALK_LARGE_SCOPES off, the default on
 * Postgres) every scope is searched through the indexes, and nothing is probed:
 * a slow search there holds one connection of the pool and the agent's own
 * concurrency slot, not the whole service as on the embedded database.
 */
export const SEARCH_NODES_CALL = `
  select r from am_search_nodes($1::text, $2::text, $3::int, $4::int, $5::int, $6::int, $7::int, $8::bigint, $9::int, $10::bigint,
    case when $12::int is null then $11::boolean
         else $11::boolean and not ${scopeAbove("graph_entities", "t.scope, t.id", "0", "$12::int")}
              and not ${scopeAbove("graph_observations", "t.scope, t.entity_id, t.id", "0, 0", "$13::int")} end) as r`;

// open_nodes: $1 scope, $2 names, $3 entity budget, $4 relation budget, $5
// count cap (observations of each entity, relations). Every named entity that
// exists (insertion order, as the reference) with who wrote what when, and the
// relations touching them.
export const OPEN_NODES = `
  with page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, a.name as created_by
    from graph_entities e join agents a on a.id = e.created_by
    where e.scope = $1::text and am_graph_key(e.name) = any(${NAME_KEYS})
  ), ${entityPart("$3", true, "$5")}, ${keptRelationsPart("$4")}
  select ${entitiesJson("$3", true)} as entities, ${relationsJson(true)} as relations,
    ${keptRelationsTotal("$5", "$4")} as total_relations`;

// read_observations: one entity's observations from an offset. $1 scope, $2
// name, $3 offset, $4 limit, $5 budget, $6 count cap (at least the page's
// rows). No row: no such entity.
export const ENTITY_OBSERVATIONS = `
  with ent as (
    select e.id, e.name, e.entity_type from graph_entities e
    where e.scope = $1::text and am_graph_key(e.name) = am_graph_key($2::text)
  ), sel as (
    select o.id, o.content, o.created_by, o.created_at,
      sum(char_length(o.content) + ${O}) over (order by o.id) - (char_length(o.content) + ${O}) as at
    from (
      select o.* from graph_observations o where o.entity_id = (select id from ent)
      order by o.id offset $3::int limit least($4::int, $5::int / ${O} + 1)
    ) o
  )
  select ent.name, ent.entity_type,
    -- From the offset on, counted up to $6 + 1 (exact up to $6, "at least"
    -- past it): counting them all grew with the entity on every page.
    (select count(*) from (select 1 from graph_observations o where o.entity_id = ent.id limit $3::int + $6::int + 1) c)::int as counted,
    coalesce((select json_agg(s.content order by s.id) from sel s where s.at < $5::int), '[]'::json) as observations,
    coalesce((select json_agg(json_build_object('createdBy', a.name, 'createdAt', ${ISO("s.created_at")}) order by s.id)
      from sel s join agents a on a.id = s.created_by where s.at < $5::int), '[]'::json) as meta
  from ent`;
