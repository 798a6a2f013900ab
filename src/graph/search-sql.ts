// Which entities search_nodes matches, with work bounded by a count cap instead
// of by the number of matches (security review: one common letter over ~19,200
// matching entities took ~750 ms on the embedded database, which runs one
// statement at a time, and every other agent waited behind it). Before, every
// match was collected, de-duplicated and counted before the first page could be
// cut: the work grew with the matches however few were shown.
//
// Two ways to find the matches, chosen in the statement itself:
// - the lists (`names`, `types`, `obs`): each of the three conditions (name,
//   type, observation text) on its own, each read only up to cap + 1 rows.
//   When no list reaches that, together they are every match, and a selective
//   query costs what it did. A list past the cap settles the count.
// - `walk`: when a list reached its limit (the query is common), the scope's
//   entities in id order, each tested against the three conditions, a step of
//   at most WALK_CHUNK entities and WALK_OBSERVATION_CHUNK observations at a
//   time, until the page (and, when the lists did not settle it, the count)
//   is complete. With many matches that comes early. A query of one or two
//   characters has no trigram to look up: it is always walked.
// The walk takes at most $9 steps per call, so one call tests a bounded number
// of entities and of observations whatever the scope holds; stopped there, the
// answer's cursor resumes it (WALK_CUT, WALK_CUT_OBSERVATION), inside an
// entity if need be. The count is exact up to the cap when the
// lists held every match or the walk went through the whole scope from its
// start; otherwise the caller says "at least".
//
// The store runs the statement without sequential scans (src/graph/search.ts):
// every read below goes through an index led by the scope.
//
// Parameters, shared with the rest of SEARCH_NODES (read-sql.ts): $1 scope, $2
// escaped '%…%' pattern, $7 count cap, $8 the entity id to start after (0, or
// a cursor's), $9 the walk's steps at most, $10 the observation of entity $8
// to resume after (0: none, entity $8 was tested whole); `pageEnd` is the SQL
// for the offset plus the page's size.

/**
 * Entities tested per step of the walk. Small enough that the whole statement's
 * estimated cost stays below Postgres's jit_above_cost (JIT compilation of a
 * plan that merely looks expensive cost ~13 ms per call), large enough that a
 * walk to 10,000 matches takes ~100 steps (~7 ms on Postgres).
 */
export const WALK_CHUNK = 100;

// Pattern and cap (and the walk's scope) as init plans' values: planned
// without looking at them, every call's plan costs the same, so Postgres keeps
// one generic plan per connection for the prepared statement instead of
// planning anew each call (~1.5 ms, more than a selective search costs to run):
// a custom plan that saw the scope estimated the walk at a few rows, the
// generic one at thousands. Unseen, the pattern also cannot lead the planner to
// read the scope's rows in the belief that another scope's statistics hold for
// this one. The indexes take these values as they take parameters.
const SCOPE = "(select $1::text)";
const PATTERN = "(select $2::text)";
const CAP = "(select $7::int)";
const MAX_ID = "9223372036854775807::bigint";

const condition = (column: string) => `${column} ilike ${PATTERN}`;

// A list's rows come from a CTE of its own, planned (as every CTE) to be read
// whole, and read only up to the limit: told about the limit, the planner chose
// to read the scope's rows in the hope of stopping early over the trigram
// index, even for a selective query.
const rows = (name: string, table: string, id: string, column: string) =>
  `${name}_rows as materialized (select ${id} as id from ${table} where scope = $1::text and ${condition(column)})`;
const list = (name: string) => `${name} as materialized (select array(select id from ${name}_rows limit ${CAP} + 1) as a)`;

// Where the walk starts and how far it may go in one call. $8: the entity id
// it resumes after (0, or a cursor's); $10: when > 0, the walk resumes inside
// entity $8 instead, after its observation $10 (its name, type and
// observations up to there were tested without a match). $9: the steps it may
// take (from GRAPH_SEARCH_SCAN_MAX). Without a bound a query whose matches sit
// at the end of a large scope, one entity with more than the cap of matching
// observations, or a one- or two-letter query (no trigram to look up) made
// one call test every entity of the scope (security review: 135-157 ms at
// 50,000 entities on Postgres, the only connection held as long on the
// embedded database). Stopped at its bound, the walk says where (WALK_CUT,
// WALK_CUT_OBSERVATION) and the answer hands out a cursor that resumes there.
const AFTER = "(select $8::bigint)";
const AFTER_OBSERVATION = "(select $10::bigint)";
const STEPS = "(select $9::int)";

/**
 * Observations tested per step of the walk at most: twice WALK_CHUNK, so a
 * step through entities of two observations each (the usual graph) still
 * tests WALK_CHUNK entities, and one call no more observations than that
 * whatever one entity holds.
 */
export const WALK_OBSERVATION_CHUNK = 2 * WALK_CHUNK;

// One step of the walk: the next WALK_CHUNK entities (`c`, their names and
// types tested), then the next WALK_OBSERVATION_CHUNK observations of those
// that did not match (`v`), read in (entity, id) order from where the walk
// stands: one range of the (scope, entity_id, id) index, whatever the entities
// hold. When that range fills before the step's last entity, the step ends at
// its last observation (`s`): in the middle of an entity that has not matched
// yet (the next step, or a cursor, goes on inside it) or after one that has.
// The walk's place (last_id, last_obs) is its last entity and observation
// tested, last_obs = MAX_ID once the whole entity was.
//
// Before, each entity's observations were one subquery (`limit 1` on the first
// match), which read all of them when none matched: one entity with 50,000
// observations made a short query of its scope cost 50,000 tests in one call
// (security review follow-up), and nothing kept Postgres from planning it as a
// bitmap AND with the trigram index: for a pattern without trigrams ('%zq%')
// that reads the whole index, once per entity (6.4 s for 1,001 entities and
// 52,000 observations). The range below has no ILIKE in its condition, so only
// the (scope, entity_id, id) index can serve it, in its order, up to its limit.
// What a step reads past its end (names and types of its entities after it,
// observations after its last entity to test, rows of the next scope) counts
// nothing: at most WALK_CHUNK entities and WALK_OBSERVATION_CHUNK observations.
const WALK = `walk(last_id, last_obs, ids, n, steps, whole) as (
    select ${AFTER}, case when ${AFTER_OBSERVATION} > 0 then ${AFTER_OBSERVATION} else ${MAX_ID} end, '{}'::bigint[], 0, 0, true
    from decided where not complete
    union all
    select s.last_id, s.last_obs, s.ids, w.n + cardinality(s.ids), w.steps + 1, s.more
    from walk w cross join lateral (
      -- The step's entities: those of the caller's scope among the next
      -- WALK_CHUNK rows of the (scope, id) index (inside: rows past the
      -- scope's end count nothing). first_open, last_open: the first and
      -- last entity whose name and type did not match, where the observations
      -- to test begin and end.
      select max(x.id) filter (where x.inside) as last_id, count(*) filter (where x.inside) as rows,
        coalesce(array_agg(x.id) filter (where x.inside and x.hit), '{}') as hits,
        min(x.id) filter (where x.inside and not x.hit) as first_open, max(x.id) filter (where x.inside and not x.hit) as last_open
      from (
        select e.id, e.scope = ${SCOPE} as inside, (e.name ilike ${PATTERN} or e.entity_type ilike ${PATTERN}) as hit
        from graph_entities e
        -- From the walk's place on, in (scope, id) order (an entity the walk
        -- stands inside comes again), as a row comparison with no upper bound:
        -- planned without seeing the scope, it is estimated at a third of the
        -- table, so reading WALK_CHUNK rows of the index in order always looks
        -- cheaper than sorting the scope's rows. Bounded on both sides, the
        -- estimate fell to a ninth and, at 1,000 entities, each step read the
        -- whole scope through graph_entities_scope_name (scope >= … and scope
        -- <= …, estimated at 0.5% of the rows) to sort it. (With an equality
        -- on the scope the primary key yields this order too, and a plan
        -- walking every scope's entities from the first was chosen.)
        where (e.scope, e.id) > (${SCOPE}, w.last_id - (w.last_obs < ${MAX_ID})::int)
        order by e.scope, e.id
        limit ${WALK_CHUNK}
      ) x
    ) c cross join lateral (
      -- The observations from the first entity to test on, in (scope, entity,
      -- id) order; those past the last entity to test (inside: false) count
      -- nothing. No upper bound, for the reason given for the entities.
      select count(*) filter (where y.inside) as rows, max(array[y.entity_id, y.id]) filter (where y.inside) as last,
        coalesce(array_agg(y.entity_id) filter (where y.inside and y.hit), '{}') as hits
      from (
        select o.entity_id, o.id, o.scope = ${SCOPE} and o.entity_id <= c.last_open as inside, o.content ilike ${PATTERN} as hit
        from graph_observations o
        where c.first_open is not null
          and (o.scope, o.entity_id, o.id) > (${SCOPE}, c.first_open, case when c.first_open = w.last_id then w.last_obs else 0 end)
        order by o.scope, o.entity_id, o.id
        limit ${WALK_OBSERVATION_CHUNK}
      ) y
    ) v cross join lateral (
      -- Where the step ends: at its last entity, or, when the observations
      -- filled their limit, at the last one read (inside its entity, unless
      -- that entity matched). Matches past that place are left to the next step.
      select f.at as last_id, case when f.full and not (f.at = any(c.hits || v.hits)) then v.last[2] else ${MAX_ID} end as last_obs,
        array(select distinct h from unnest(c.hits || v.hits) as h where h <= f.at) as ids,
        c.rows = ${WALK_CHUNK} or f.full as more
      from (select v.rows = ${WALK_OBSERVATION_CHUNK} as full, case when v.rows = ${WALK_OBSERVATION_CHUNK} then v.last[1] else c.last_id end as at) f
    ) s
    where w.n < (select want from decided) and w.steps < ${STEPS} and c.last_id is not null
  )`;

/**
 * CTEs (for a `with recursive` list) ending in `matched`: entity ids of the
 * scope that match, in no particular order. Every match when
 * `decided.complete` or when the walk ran out of entities; otherwise at least
 * the first `decided.want` in id order. `found.counted`: distinct matches the
 * lists proved (more than the cap once one list passed it).
 */
export const searchMatch = (indexed: boolean, pageEnd: string) =>
  indexed
    ? `
  ${rows("names", "graph_entities", "id", "name")},
  ${rows("types", "graph_entities", "id", "entity_type")},
  ${rows("obs", "graph_observations", "entity_id", "content")},
  ${list("names")}, ${list("types")}, ${list("obs")},
  found as materialized (
    -- A list past the cap settles the count: the walk then only has to reach the
    -- end of the page (+ 1, to tell whether more follow). Names and types hold
    -- distinct entities; observations may repeat one. Evaluated in order and
    -- lazily (a CTE is read when first needed), so a common name skips the rest.
    select case
        when (select cardinality(a) from names) > ${CAP} then ${CAP} + 1
        when (select cardinality(a) from types) > ${CAP} then ${CAP} + 1
        else (select count(distinct x) from (
          select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x))::int
      end as counted
  ), decided as materialized (
    -- Every match is in the lists when none stopped at its limit (an AND stops
    -- at a settled count without reading the observations).
    select f.counted,
      f.counted <= ${CAP} and (select cardinality(a) from obs) <= ${CAP} as complete,
      -- After a cursor the count is "at least" anyway: the walk ends with the page.
      case when f.counted > ${CAP} or ${AFTER} > 0 then ${pageEnd} + 1 else greatest(${pageEnd} + 1, ${CAP} + 1) end as want
    from found f
  ), ${WALK}, matched as materialized (
    select distinct x as id from decided d, lateral (
      select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x)
    -- (An entity a cursor stands inside was not shown yet.)
    where d.complete and x > ${AFTER} - (${AFTER_OBSERVATION} > 0)::int
    union all
    select x from walk w cross join unnest(w.ids) as x
  )`
    : `
  decided as materialized (
    -- No trigram to look up: the scope is walked from the start, far enough to
    -- count up to the cap when the walk's budget allows; after a cursor, to the
    -- end of the page.
    select 0 as counted, false as complete,
      case when ${AFTER} > 0 then ${pageEnd} + 1 else greatest(${pageEnd} + 1, ${CAP} + 1) end as want
  ), ${WALK}, matched as materialized (
    select x as id from walk w cross join unnest(w.ids) as x
  )`;

/** How many entities match, as far as counted: at least this many, exactly when at most the cap. */
export const MATCH_TOTAL = `greatest((select counted from decided), (select count(*) from matched))::int`;
/** How many matches `matched` holds: more than offset + shown means another page follows. */
export const MATCHED_ROWS = `(select count(*) from matched)::int`;
const WALK_STOPPED = `from walk w where w.steps = ${STEPS} and w.whole and w.n < (select want from decided)`;
/**
 * The entity id the walk stopped at when its budget ran out before the page
 * was complete and the scope may go on (null otherwise): where a cursor resumes.
 */
export const WALK_CUT = `(select w.last_id ${WALK_STOPPED})`;
/**
 * When the walk stopped inside that entity: the last of its observations it
 * tested (none matched, nor its name or type); null when it tested it whole.
 */
export const WALK_CUT_OBSERVATION = `(select nullif(w.last_obs, ${MAX_ID}) ${WALK_STOPPED})`;
/** True when the lists held every match (the count is exact, whatever the cursor). */
export const COMPLETE = `(select complete from decided)`;
