select am_graph_open($1::text, $2::text[], $3::int, $4::int, $5::int) as r
