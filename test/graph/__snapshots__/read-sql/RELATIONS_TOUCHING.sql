with from_side as materialized (
    select r.id from graph_relations r
    where not $3::boolean and r.scope = (select $1::text) and r.from_name = any($2::text[]) and am_graph_key(r.from_name) = any((select am_graph_keys($2::text[]))::bytea[])
    limit $8::int + 1
  ), to_side as materialized (
    select r.id from graph_relations r
    where not $3::boolean and r.scope = (select $1::text) and r.to_name = any($2::text[]) and am_graph_key(r.to_name) = any((select am_graph_keys($2::text[]))::bytea[])
    limit $8::int + 1
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
    select id from matches order by id offset $5::int limit least($6::int, $7::int / am_graph_frame('relation') + 1) + 1
  ), 
  rshown as materialized (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        row_number() over (order by r.id) as ord,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $7::int and x.ord <= least($6::int, $7::int / am_graph_frame('relation') + 1)
  )
  select (select count(*) from matches)::int as counted, null::int as count_max,
    (select count(*) from rshown)::int as shown, (select max(id) from rshown) as last_id,
    (select max(id) from walked having count(*) = $9::int and bool_and(inside)) as walked_to,
    coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type,
    'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id)
    from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations
