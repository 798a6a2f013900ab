select count(*)::int as n from (
  select id from graph_entities where scope = $1::text and name ilike $2::text
  union
  select id from graph_entities where scope = $1::text and entity_type ilike $2::text
  union
  select entity_id from graph_observations where scope = $1::text and content ilike $2::text) as m(id) join graph_entities e on e.id = m.id where e.scope = $1::text
