select count(*)::int as n from graph_entities
  where scope = $1::text and am_graph_key(name) = any(am_graph_keys($2::text[]))
