select scope, sum(entities)::int as entities from graph_scope_entities
  where scope <> $1::text and am_in_scopes(scope, $2::boolean, $3::text[])
  group by scope having sum(entities) > 0 order by scope limit $4::int
