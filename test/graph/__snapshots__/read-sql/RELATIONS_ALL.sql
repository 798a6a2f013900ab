with rsel as (
    select x.id from (
      select r.id, r.scope = $1::text as inside from graph_relations r
      where (r.scope, r.id) > ($1::text, $2::bigint)
      order by r.scope, r.id offset $3::int limit least($4::int, $5::int / am_graph_frame('relation') + 1) + 1) x where x.inside
  ), 
  rshown as materialized (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        row_number() over (order by r.id) as ord,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + am_graph_frame('relation')) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $5::int and x.ord <= least($4::int, $5::int / am_graph_frame('relation') + 1)
  )
  select (select count(*) from (
      select r.id, r.scope = $1::text as inside from graph_relations r
      where (r.scope, r.id) > ($1::text, $2::bigint)
      order by r.scope, r.id offset 0 limit $3::int + greatest($6::int, least($4::int, $5::int / am_graph_frame('relation') + 1)) + 1) c where c.inside)::int as counted,
    greatest($6::int, least($4::int, $5::int / am_graph_frame('relation') + 1)) as count_max,
    (select count(*) from rshown)::int as shown, (select max(id) from rshown) as last_id,
    null::bigint as walked_to, coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type,
    'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id)
    from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations
