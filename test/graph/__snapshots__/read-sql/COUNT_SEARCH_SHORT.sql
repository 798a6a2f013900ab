select count(*)::int as n from (
  select id from graph_entities where name ilike $2::text
  union
  select id from graph_entities where entity_type ilike $2::text
  union
  select entity_id from graph_observations where content ilike $2::text) as m(id) join graph_entities e on e.id = m.id where e.scope = $1::text
