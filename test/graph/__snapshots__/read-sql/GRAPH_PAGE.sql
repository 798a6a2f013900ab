select am_graph_page($1::text, $2::int, $3::int, $4::int) as r
