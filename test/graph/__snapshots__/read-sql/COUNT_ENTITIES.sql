select count(*)::int as n from graph_entities where scope = $1::text
