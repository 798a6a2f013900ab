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
//   entities in id order, a step of WALK_CHUNK at a time, each tested against
//   the three conditions, until the page (and, when the lists did not settle
//   it, the count) is complete. With many matches that comes early. A query of
//   one or two characters has no trigram to look up: it is always walked.
// The walk takes at most $9 steps per call; stopped there, the answer's
// cursor resumes it (WALK_CUT). The count is exact up to the cap when the
// lists held every match or the walk went through the whole scope from its
// start; otherwise the caller says "at least".
//
// The store runs the statement without sequential scans (src/graph/read.ts):
// every read below goes through an index led by the scope.
//
// Parameters, shared with the rest of SEARCH_NODES (read-sql.ts): $1 scope, $2
// escaped '%…%' pattern, $7 count cap, $8 the entity id to start after (0, or
// a cursor's), $9 the walk's steps at most; `pageEnd` is the SQL for the
// offset plus the page's size.

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

// The observation test of the walk is a scalar subquery, not EXISTS: Postgres
// may plan an EXISTS as a hash of every matching observation of every scope,
// built before the first entity is tested.
const WALK_HIT = `e.name ilike ${PATTERN} or e.entity_type ilike ${PATTERN}
            or coalesce((select true from graph_observations o where o.entity_id = e.id and o.content ilike ${PATTERN} limit 1), false)`;

// Where the walk starts ($8: 0, or the entity id a cursor resumes after) and
// how many steps of WALK_CHUNK it may take in one call ($9, from
// GRAPH_SEARCH_SCAN_MAX). Without that bound a query whose matches sit at the
// end of a large scope, one entity with more than the cap of matching
// observations, or a one- or two-letter query (no trigram to look up) made one
// call test every entity of the scope (security review: 135-157 ms at 50,000
// entities on Postgres, the only connection held as long on the embedded
// database). Stopped at its bound, the walk says where (WALK_CUT) and the
// answer hands out a cursor that resumes there.
const AFTER = "(select $8::bigint)";
const STEPS = "(select $9::int)";

// `whole`: the step read a whole chunk, so the scope may go on past last_id.
const WALK = `walk(last_id, ids, n, steps, whole) as (
    select ${AFTER}, '{}'::bigint[], 0, 0, true from decided where not complete
    union all
    select c.last_id, c.ids, w.n + cardinality(c.ids), w.steps + 1, c.rows = ${WALK_CHUNK}
    from walk w cross join lateral (
      select max(x.id) as last_id, count(*) as rows, coalesce(array_agg(x.id) filter (where x.hit), '{}') as ids
      from (
        select e.id, (${WALK_HIT}) as hit
        from graph_entities e
        -- The scope as a range of (scope, id) rows, not as scope = …: only the
        -- (scope, id) index yields this order, so the walk reads the caller's
        -- scope from where it stopped. (With an equality the primary key yields
        -- it too, and a plan walking every scope's entities from the first was
        -- chosen, once per step.)
        where (e.scope, e.id) > (${SCOPE}, w.last_id) and (e.scope, e.id) <= (${SCOPE}, ${MAX_ID})
        order by e.scope, e.id
        limit ${WALK_CHUNK}
      ) x
    ) c
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
    where d.complete and x > ${AFTER}
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
/**
 * The entity id the walk stopped after when its budget ran out before the page
 * was complete and the scope may go on (null otherwise): where a cursor resumes.
 */
export const WALK_CUT = `(select w.last_id from walk w where w.steps = ${STEPS} and w.whole and w.n < (select want from decided))`;
/** True when the lists held every match (the count is exact, whatever the cursor). */
export const COMPLETE = `(select complete from decided)`;
