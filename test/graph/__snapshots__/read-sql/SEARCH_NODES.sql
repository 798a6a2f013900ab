with recursive 
  names_rows as materialized (select id as id from graph_entities where scope = $1::text and name ilike (select $2::text)),
  types_rows as materialized (select id as id from graph_entities where scope = $1::text and entity_type ilike (select $2::text)),
  obs_rows as materialized (select entity_id as id from graph_observations where scope = $1::text and content ilike (select $2::text)),
  names as materialized (select array(select id from names_rows limit (select $7::int) + 1) as a), types as materialized (select array(select id from types_rows limit (select $7::int) + 1) as a), obs as materialized (select array(select id from obs_rows limit (select $7::int) + 1) as a),
  found as materialized (
    -- A list past the cap settles the count: the walk then only has to reach the
    -- end of the page (+ 1, to tell whether more follow). Names and types hold
    -- distinct entities; observations may repeat one. Evaluated in order and
    -- lazily (a CTE is read when first needed), so a common name skips the rest.
    select case
        when (select cardinality(a) from names) > (select $7::int) then (select $7::int) + 1
        when (select cardinality(a) from types) > (select $7::int) then (select $7::int) + 1
        else (select count(distinct x) from (
          select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x))::int
      end as counted
  ), decided as materialized (
    -- Every match is in the lists when none stopped at its limit (an AND stops
    -- at a settled count without reading the observations).
    select f.counted,
      f.counted <= (select $7::int) and (select cardinality(a) from obs) <= (select $7::int) as complete,
      -- After a cursor the count is "at least" anyway: the walk ends with the page.
      case when f.counted > (select $7::int) or (select $8::bigint) > 0 then $4::int + least($3::int, $5::int / 90 + 1) + 1 else greatest($4::int + least($3::int, $5::int / 90 + 1) + 1, (select $7::int) + 1) end as want
    from found f
  ), walk(last_id, last_obs, ids, n, steps, whole) as (
    select (select $8::bigint), case when (select $10::bigint) > 0 then (select $10::bigint) else 9223372036854775807::bigint end, '{}'::bigint[], 0, 0, true
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
        select e.id, e.scope = (select $1::text) as inside, (e.name ilike (select $2::text) or e.entity_type ilike (select $2::text)) as hit
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
        where (e.scope, e.id) > ((select $1::text), w.last_id - (w.last_obs < 9223372036854775807::bigint)::int)
        order by e.scope, e.id
        limit 100
      ) x
    ) c cross join lateral (
      -- The observations from the first entity to test on, in (scope, entity,
      -- id) order; those past the last entity to test (inside: false) count
      -- nothing. No upper bound, for the reason given for the entities.
      select count(*) filter (where y.inside) as rows, max(array[y.entity_id, y.id]) filter (where y.inside) as last,
        coalesce(array_agg(y.entity_id) filter (where y.inside and y.hit), '{}') as hits
      from (
        select o.entity_id, o.id, o.scope = (select $1::text) and o.entity_id <= c.last_open as inside, o.content ilike (select $2::text) as hit
        from graph_observations o
        where c.first_open is not null
          and (o.scope, o.entity_id, o.id) > ((select $1::text), c.first_open, case when c.first_open = w.last_id then w.last_obs else 0 end)
        order by o.scope, o.entity_id, o.id
        limit 200
      ) y
    ) v cross join lateral (
      -- Where the step ends: at its last entity, or, when the observations
      -- filled their limit, at the last one read (inside its entity, unless
      -- that entity matched). Matches past that place are left to the next step.
      select f.at as last_id, case when f.full and not (f.at = any(c.hits || v.hits)) then v.last[2] else 9223372036854775807::bigint end as last_obs,
        array(select distinct h from unnest(c.hits || v.hits) as h where h <= f.at) as ids,
        c.rows = 100 or f.full as more
      from (select v.rows = 200 as full, case when v.rows = 200 then v.last[1] else c.last_id end as at) f
    ) s
    where w.n < (select want from decided) and w.steps < (select $9::int) and c.last_id is not null
  ), matched as materialized (
    select distinct x as id from decided d, lateral (
      select unnest(a) from names union all select unnest(a) from types union all select unnest(a) from obs) as u(x)
    -- (An entity a cursor stands inside was not shown yet.)
    where d.complete and x > (select $8::bigint) - ((select $10::bigint) > 0)::int
    union all
    select x from walk w cross join unnest(w.ids) as x
  ), page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, null::text as created_by
    from graph_entities e
    where e.id = any(array(select id from matched order by id limit least($3::int, $5::int / 90 + 1) offset $4::int))
      and e.scope = $1::text
  ), 
  sized as (
    select p.*, char_length(p.name) + char_length(p.entity_type) + 90 as head, coalesce(c.cost, 0) as body
    from page p cross join lateral (select sum(o.cost) as cost from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (p.id, 0::bigint) and (o.entity_id, o.id) < (p.id, 9223372036854775807::bigint) and true
      order by o.entity_id, o.id limit $5::int / 12 + 1) o) c
  ), run as (
    select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
    from sized s
  ), kept as materialized (
    select r.*, r.upto - r.head - r.body as before,
      (select count(*) from (select 1 from graph_observations o where (o.entity_id, o.id) > (r.id, 0::bigint) and (o.entity_id, o.id) < (r.id, 9223372036854775807::bigint) order by o.entity_id, o.id
        limit greatest($7::int, $5::int / 12 + 1) + 1) c)::int as total_obs
    from run r
    where r.ord = 1 or r.upto <= $5::int
  ), 
  rsel as (
    select distinct t.id from (select x.id from kept k cross join lateral (
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
        order by am_graph_key(r.from_name), r.id limit $6::int / 75 + 1)
      union all
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
        order by am_graph_key(r.to_name), r.id limit $6::int / 75 + 1)) x) t
    order by t.id limit $6::int / 75 + 1
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $6::int
  )
  select greatest((select counted from decided), (select count(*) from matched))::int as total, (select count(*) from matched)::int as matched, (select complete from decided) as complete, (select w.last_id from walk w where w.steps = (select $9::int) and w.whole and w.n < (select want from decided)) as walked_to, (select nullif(w.last_obs, 9223372036854775807::bigint) from walk w where w.steps = (select $9::int) and w.whole and w.n < (select want from decided)) as walked_obs,
    (select max(k.id) from kept k) as last_id, coalesce((select json_agg(json_build_object(
    'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
    'totalObservations', k.total_obs) order by k.id)
    from kept k left join lateral (
      select json_agg(x.content order by x.id) as observations
      from (
        select o.*, sum(o.cost) over (order by o.id) - o.cost as at
        from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (k.id, 0::bigint) and (o.entity_id, o.id) < (k.id, 9223372036854775807::bigint) and k.before + k.head < $5::int
      order by o.entity_id, o.id limit $5::int / 12 + 1) o
      ) x
      where k.before + k.head + x.at < $5::int
    ) g on true), '[]'::json) as entities,
    coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations, (select count(distinct t.id) from (select x.id from kept k cross join lateral (
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
        order by am_graph_key(r.from_name), r.id limit 2 * (greatest($7::int, $6::int / 75 + 1) + 1))
      union all
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
        order by am_graph_key(r.to_name), r.id limit 2 * (greatest($7::int, $6::int / 75 + 1) + 1))) x limit 2 * (greatest($7::int, $6::int / 75 + 1) + 1)) t)::int as total_relations
