select r from am_search_nodes($1::text, $2::text, $3::int, $4::int, $5::int, $6::int, $7::int, $8::bigint, $9::int, $10::bigint,
    case when $12::int is null then $11::boolean
         else $11::boolean and not (select count(*) filter (where r.scope = (select $1::text)) from (select t.scope from graph_entities t
      where (t.scope, t.id) > ((select $1::text), 0) order by t.scope, t.id limit $12::int + 1) r) > $12::int
              and not (select count(*) filter (where r.scope = (select $1::text)) from (select t.scope from graph_observations t
      where (t.scope, t.entity_id, t.id) > ((select $1::text), 0, 0) order by t.scope, t.entity_id, t.id limit $13::int + 1) r) > $13::int end) as r
