with who as (select id from agents where $3::text is null or name = $3::text)
  select w.kind, w.action, w.scope, w.subject, w.detail, a.name as actor, to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
    from (
      (select 'entity' as kind, 'added' as action, g.scope, g.name as subject, g.entity_type as detail, g.created_by, g.created_at
         from graph_entities g
        where ($1::boolean or g.scope = any($2::text[])) and g.created_by in (select id from who)
        order by g.id desc limit $4::int)
      union all
      (select 'relation', 'added', r.scope, r.from_name, r.relation_type || ' → ' || r.to_name, r.created_by, r.created_at
         from graph_relations r
        where ($1::boolean or r.scope = any($2::text[])) and r.created_by in (select id from who)
        order by r.id desc limit $4::int)
      union all
      (select 'observation', 'added', g.scope, g.name, left(o.content, 200), o.created_by, o.created_at
         from graph_observations o join graph_entities g on g.id = o.entity_id
        where ($1::boolean or g.scope = any($2::text[])) and o.created_by in (select id from who)
        order by o.id desc limit $4::int)
      union all
      (select d.kind, 'deleted', d.scope, d.subject, d.detail, d.deleted_by, d.deleted_at
         from graph_deletions d
        where ($1::boolean or d.scope = any($2::text[])) and d.deleted_by in (select id from who)
        order by d.id desc limit $4::int)
    ) w
    join agents a on a.id = w.created_by
   order by w.created_at desc
   limit $4::int
