with page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, a.name as created_by
    from graph_entities e join agents a on a.id = e.created_by
    where e.scope = $1::text and am_graph_key(e.name) = any((select am_graph_keys($2::text[]))::bytea[])
  ), 
  sized as (
    select p.*, char_length(p.name) + char_length(p.entity_type) + 90 as head, coalesce(c.cost, 0) as body
    from page p cross join lateral (select sum(o.cost) as cost from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (p.id, 0::bigint) and (o.entity_id, o.id) < (p.id, 9223372036854775807::bigint) and true
      order by o.entity_id, o.id limit $3::int / 12 + 1) o) c
  ), run as (
    select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
    from sized s
  ), kept as materialized (
    select r.*, r.upto - r.head - r.body as before,
      (select count(*) from (select 1 from graph_observations o where (o.entity_id, o.id) > (r.id, 0::bigint) and (o.entity_id, o.id) < (r.id, 9223372036854775807::bigint) order by o.entity_id, o.id
        limit greatest($5::int, $3::int / 12 + 1) + 1) c)::int as total_obs
    from run r
    where true
  ), 
  rsel as (
    select distinct t.id from (select x.id from kept k cross join lateral (
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
        order by am_graph_key(r.from_name), r.id limit $4::int / 75 + 1)
      union all
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
        order by am_graph_key(r.to_name), r.id limit $4::int / 75 + 1)) x) t
    order by t.id limit $4::int / 75 + 1
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $4::int
  )
  select coalesce((select json_agg(json_build_object(
    'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
    'totalObservations', k.total_obs, 'createdBy', k.created_by, 'createdAt', to_char(k.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'observationsMeta', coalesce(g.meta, '[]'::json)) order by k.id)
    from kept k left join lateral (
      select json_agg(x.content order by x.id) as observations, json_agg(json_build_object('createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id) as meta
      from (
        select o.*, sum(o.cost) over (order by o.id) - o.cost as at
        from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (k.id, 0::bigint) and (o.entity_id, o.id) < (k.id, 9223372036854775807::bigint) and k.before + k.head < $3::int
      order by o.entity_id, o.id limit $3::int / 12 + 1) o
      ) x join agents a on a.id = x.created_by
      where k.before + k.head + x.at < $3::int
    ) g on true), '[]'::json) as entities, coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type, 'createdBy', a.name, 'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations,
    (select count(distinct t.id) from (select x.id from kept k cross join lateral (
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.from_name) >= am_graph_key(k.name) and am_graph_key(r.from_name) <= am_graph_key(k.name) and r.from_name = k.name
        order by am_graph_key(r.from_name), r.id limit 2 * (greatest($5::int, $4::int / 75 + 1) + 1))
      union all
      (select r.id from graph_relations r
        where r.scope = $1::text and am_graph_key(r.to_name) >= am_graph_key(k.name) and am_graph_key(r.to_name) <= am_graph_key(k.name) and r.to_name = k.name
        order by am_graph_key(r.to_name), r.id limit 2 * (greatest($5::int, $4::int / 75 + 1) + 1))) x limit 2 * (greatest($5::int, $4::int / 75 + 1) + 1)) t)::int as total_relations
