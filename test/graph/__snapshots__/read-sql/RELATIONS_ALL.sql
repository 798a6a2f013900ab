with 
  rsel as (
    select r.id from graph_relations r where r.scope = $1::text
    order by r.id offset $2::int limit least($3::int, $4::int / 75 + 1)
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $4::int
  )
  select (select count(*) from graph_relations r where r.scope = $1::text)::int as total, coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type, 'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations
