select am_graph_search($1::text, $2::text, $3::int, $4::int, $5::int, $6::int, $7::int, $8::bigint, $9::int, $10::bigint, $11::boolean, $12::boolean) as r
