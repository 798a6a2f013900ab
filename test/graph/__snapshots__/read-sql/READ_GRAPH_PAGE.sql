with page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, null::text as created_by
    from graph_entities e
    where e.scope = $1::text
    order by e.id
    limit least($2::int, $4::int / 90 + 1) offset $3::int
  ), 
  sized as (
    select p.*, char_length(p.name) + char_length(p.entity_type) + 90 as head, coalesce(c.cost, 0) as body
    from page p cross join lateral (select sum(o.cost) as cost from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (p.id, 0::bigint) and (o.entity_id, o.id) < (p.id, 9223372036854775807::bigint) and true
      order by o.entity_id, o.id limit $4::int / 12 + 1) o) c
  ), run as (
    select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
    from sized s
  ), kept as materialized (
    select r.*, r.upto - r.head - r.body as before,
      (select count(*) from (select 1 from graph_observations o where (o.entity_id, o.id) > (r.id, 0::bigint) and (o.entity_id, o.id) < (r.id, 9223372036854775807::bigint) order by o.entity_id, o.id
        limit greatest($5::int, $4::int / 12 + 1) + 1) c)::int as total_obs
    from run r
    where r.ord = 1 or r.upto <= $4::int
  )
  select coalesce((select json_agg(json_build_object(
    'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
    'totalObservations', k.total_obs) order by k.id)
    from kept k left join lateral (
      select json_agg(x.content order by x.id) as observations
      from (
        select o.*, sum(o.cost) over (order by o.id) - o.cost as at
        from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where (o.entity_id, o.id) > (k.id, 0::bigint) and (o.entity_id, o.id) < (k.id, 9223372036854775807::bigint) and k.before + k.head < $4::int
      order by o.entity_id, o.id limit $4::int / 12 + 1) o
      ) x
      where k.before + k.head + x.at < $4::int
    ) g on true), '[]'::json) as entities
