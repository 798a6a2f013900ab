with page as materialized (
    select e.id, e.name, e.entity_type, e.created_at, null::text as created_by, count(*) over () as total
    from (
  select id from graph_entities where scope = $1::text and name ilike $2::text
  union
  select id from graph_entities where scope = $1::text and entity_type ilike $2::text
  union
  select entity_id from graph_observations where scope = $1::text and content ilike $2::text) as m(id) join graph_entities e on e.id = m.id
    where e.scope = $1::text
    order by e.id
    limit least($3::int, $5::int / 90 + 1) offset $4::int
  ), 
  sized as (
    select p.*, char_length(p.name) + char_length(p.entity_type) + 90 as head, coalesce(c.cost, 0) as body
    from page p cross join lateral (select sum(o.cost) as cost from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where o.entity_id = p.id and true
      order by o.id limit $5::int / 12 + 1) o) c
  ), run as (
    select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
    from sized s
  ), kept as materialized (
    select r.*, r.upto - r.head - r.body as before,
      (select count(*) from graph_observations o where o.entity_id = r.id)::int as total_obs
    from run r
    where r.ord = 1 or r.upto <= $5::int
  ), 
  rmatch as materialized (
    select x.id from (
      select r.id from kept k join graph_relations r
      on r.scope = $1::text and r.from_name = k.name and am_graph_key(r.from_name) = any(array[am_graph_key(k.name)])
      union
      select r.id from kept k join graph_relations r
      on r.scope = $1::text and r.to_name = k.name and am_graph_key(r.to_name) = any(array[am_graph_key(k.name)])) x
  ), rsel as (
    select id from rmatch order by id offset 0 limit least(null::int, $6::int / 75 + 1)
  ), rshown as (
    select x.* from (
      select r.id, r.from_name, r.to_name, r.relation_type, r.created_by, r.created_at,
        sum(char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) over (order by r.id) - (char_length(r.from_name) + char_length(r.to_name) + char_length(r.relation_type) + 75) as at
      from graph_relations r where r.id = any(array(select id from rsel))
    ) x
    where x.at < $6::int
  )
  select (select total from page limit 1)::int as total, coalesce((select json_agg(json_build_object(
    'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
    'totalObservations', k.total_obs) order by k.id)
    from kept k left join lateral (
      select json_agg(x.content order by x.id) as observations
      from (
        select o.*, sum(o.cost) over (order by o.id) - o.cost as at
        from (
      select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + 12 as cost
      from graph_observations o where o.entity_id = k.id and k.before + k.head < $5::int
      order by o.id limit $5::int / 12 + 1) o
      ) x
      where k.before + k.head + x.at < $5::int
    ) g on true), '[]'::json) as entities, coalesce((select json_agg(json_build_object(
    'from', x.from_name, 'to', x.to_name, 'relationType', x.relation_type) order by x.id) from rshown x join agents a on a.id = x.created_by), '[]'::json) as relations,
    (select count(*) from rmatch)::int as total_relations
