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
    coalesce((select json_agg(json_build_object('createdBy', a.name, 'createdAt', to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by s.id)
      from sel s join agents a on a.id = s.created_by where s.at < $5::int), '[]'::json) as meta
  from ent
