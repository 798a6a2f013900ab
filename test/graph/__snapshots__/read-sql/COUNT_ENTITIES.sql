select count(*)::int as n from (
    select 1 from graph_entities where scope = $1::text limit $2::int + $3::int + 1) x
