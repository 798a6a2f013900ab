select coalesce(sum(entities), 0)::int as n from graph_scope_entities where scope = $1::text
