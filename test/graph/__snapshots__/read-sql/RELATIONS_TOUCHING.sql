with 
  rmatch as materialized (
    select r.id from graph_relations r where r.scope = $1::text
    and ((r.from_name = any($2::text[]) and am_graph_key(r.from_name) = any((select am_graph_keys($2::text[]))::bytea[])) or (r.to_name = any($2::text[]) and am_graph_key(r.to_name) = any((select am_graph_keys($2::text[]))::bytea[]))
      or ($3::boolean
        and not exists (select 1 from graph_entities e where e.scope = r.scope and am_graph_key(e.name) = am_graph_key(r.from_name))
        and not exists (select 1 from graph_entities e where e.scope = r.scope and am_graph_key(e.name) = am_graph_key(r.to_name))))
  ), rsel as (
    select id from rmatch order by id offset $4::int limit least($5::int, $6::int / 75 + 1)
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $6::int
  )
  select (select count(*) from rmatch)::int as total, coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type, 'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations
