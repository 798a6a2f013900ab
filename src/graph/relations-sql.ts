// read_relations (and read_graph's relations) with work bounded by constants,
// not by what the scope holds: counting every relation of a scope before the
// first page is cut would let an agent that writes 200,000 dangling relations
// (about 35 s of writes) make each `read_relations {unattached: true}` take
// seconds, two SHA-256 key probes per relation.
//
// Counts stop at a cap: exact up to it, "at least" past it. The relations to
// list are found one of two ways, chosen in the statement itself:
// - the lists: relations with an endpoint among `names`, through the key
//   indexes, each side read up to cap + 1 rows. When neither side reaches it
//   (and unattached relations are not asked for), those rows are every match.
// - the walk: otherwise, the scope's relations in id order after the cursor,
//   at most `scan` of them, each tested (unattached: its two endpoints looked
//   up among the entities). Stopped there, the answer's cursor resumes it.
// Fixed strings with typed parameters; the builders only splice in constants.
import { isoTimeSql as ISO } from "../db/sql/iso-time.js";

const RELATION_COST = `char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')`;

/**
 * From `rsel` (relation ids in order, at most `rows` + 1 of them) to the page:
 * `shown` the first ones within `budget` characters (the crossing one still
 * shown) and at most `rows`; the JSON of those, with provenance.
 */
const shownPart = (rows: string, budget: string) => `
  rshown as materialized (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        row_number() over (order by r.id) as ord,
        sum(${RELATION_COST}) over (order by r.id) - (${RELATION_COST}) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < ${budget}::int and x.ord <= ${rows}
  )`;

const SHOWN_JSON = `coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type,
    'createdBy', a.name, 'createdAt', ${ISO("x.created_at")}) order by x.id)
    from rshown x join agents a on a.id = x.created_by), '[]'::json)`;

// As many rows as a page can show: every relation costs at least R characters.
const pageRows = (limit: string, budget: string) => `least(${limit}, ${budget}::int / am_graph_frame('relation') + 1)`;

// The scope's relations after `after`, in (scope, id) order, `skip` skipped,
// at most `rows`: one range of the (scope, id) index. A row comparison with no
// upper bound, not scope = $1: with an equality the primary key yields id order
// too, and a plan walking every scope's rows from `after` could be chosen (see
// am_graph_search.sql). Rows past the scope's end (inside false) count nothing.
const scopeFrom = (after: string, skip: string, rows: string) => `
      select r.id, r.scope = $1::text as inside from graph_relations r
      where (r.scope, r.id) > ($1::text, ${after}::bigint)
      order by r.scope, r.id offset ${skip} limit ${rows}`;

/**
 * Every relation of the scope, in id order after $2 (0, or a cursor's), $3
 * skipped first. $1 scope, $4 limit or null, $5 budget, $6 count cap.
 * `counted`: relations after $2 (the skipped ones included, so a page past the
 * end still gets the exact total), counted up to $3 plus the larger of the cap
 * and the page's rows, plus one (more than that: "at least"). Reads
 * one range of the (scope, id) index: the skipped rows (at most MAX_OFFSET),
 * the page and the count.
 */
export const RELATIONS_ALL = `
  with rsel as (
    select x.id from (${scopeFrom("$2", "$3::int", `${pageRows("$4::int", "$5")} + 1`)}) x where x.inside
  ), ${shownPart(pageRows("$4::int", "$5"), "$5")}
  select (select count(*) from (${scopeFrom("$2", "0", `$3::int + greatest($6::int, ${pageRows("$4::int", "$5")}) + 1`)}) c where c.inside)::int as counted,
    greatest($6::int, ${pageRows("$4::int", "$5")}) as count_max,
    (select count(*) from rshown)::int as shown, (select max(id) from rshown) as last_id,
    null::bigint as walked_to, ${SHOWN_JSON} as relations`;

// The keys of the names in $2, computed once per call, and the scope, as init
// plans' values: unseen, the scope cannot lead the planner astray. Seen, a
// scope the statistics did not know yet (read right after loading) was
// estimated at a row or two, so a scan of the whole scope through either
// relations index, filtering out the other names, looked as cheap as one
// lookup per name: read_graph's first page at 10,000 entities read the scope's
// 10,000 relations on each side.
const NAME_KEYS = `(select am_graph_keys($2::text[]))::bytea[]`;
const side = (column: string) => `
    select r.id from graph_relations r
    where not $3::boolean and r.scope = (select $1::text) and r.${column} = any($2::text[]) and am_graph_key(r.${column}) = any(${NAME_KEYS})
    limit $8::int + 1`;

/**
 * Relations with an endpoint among $2 names or, when $3, neither of whose
 * endpoints is an existing entity. $1 scope, $4 the relation id to start after
 * (0, or a cursor's), $5 matches to skip first, $6 limit or null, $7 budget,
 * $8 count cap, $9 relations the walk tests at most.
 * `counted`: matches past $4 found (every one when the lists held them all or
 * the walk reached the scope's end); `walked_to`: where the walk stopped at
 * its bound (a cursor resumes after it), null when it saw the scope's end.
 */
export const RELATIONS_TOUCHING = `
  with from_side as materialized (${side("from_name")}
  ), to_side as materialized (${side("to_name")}
  ), decided as materialized (
    -- Every match is in the lists when neither reached its limit; unattached
    -- relations are found only by the walk.
    select not $3::boolean and (select count(*) from from_side) <= $8::int and (select count(*) from to_side) <= $8::int as complete
  ), walked as materialized (
    -- At most $9 relations from the cursor on, in (scope, id) order, each
    -- tested: an endpoint among the names (plain text equality), else, when
    -- asked, both endpoints missing from the entities (a key probe each).
    -- No upper bound on the range: rows past the scope's end count nothing.
    select r.id, r.scope = $1::text as inside,
      case when r.scope <> $1::text then false
        when r.from_name = any($2::text[]) or r.to_name = any($2::text[]) then true
        when not $3::boolean then false
        else not exists (select 1 from graph_entities e where e.scope = r.scope and am_graph_key(e.name) = am_graph_key(r.from_name))
          and not exists (select 1 from graph_entities e where e.scope = r.scope and am_graph_key(e.name) = am_graph_key(r.to_name))
      end as hit
    from graph_relations r
    where not (select complete from decided) and (r.scope, r.id) > ($1::text, $4::bigint)
    order by r.scope, r.id
    limit $9::int
  ), matches as materialized (
    select x.id from (select id from from_side union select id from to_side) x
    where (select complete from decided) and x.id > $4::bigint
    union all
    select id from walked where hit
  ), rsel as (
    select id from matches order by id offset $5::int limit ${pageRows("$6::int", "$7")} + 1
  ), ${shownPart(pageRows("$6::int", "$7"), "$7")}
  select (select count(*) from matches)::int as counted, null::int as count_max,
    (select count(*) from rshown)::int as shown, (select max(id) from rshown) as last_id,
    (select max(id) from walked having count(*) = $9::int and bool_and(inside)) as walked_to,
    ${SHOWN_JSON} as relations`;
