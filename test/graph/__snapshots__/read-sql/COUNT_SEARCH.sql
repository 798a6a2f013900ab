select count(*)::int as n from (select id from am_graph_match($1::text, $2::text) as m(id)) as m(id) join graph_entities e on e.id = m.id where e.scope = $1::text
