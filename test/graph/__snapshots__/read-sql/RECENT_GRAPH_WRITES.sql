select w.source, w.id, w.kept, w.stop, to_char(w.stop_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as stop_at,
         w.kind, w.action, w.scope, w.subject, w.detail, a.name as actor, to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
    from (
      (select 'graph_entities' as source, p.id, p.kept, max(p.id) filter (where p.last) over () as stop, max(t.created_at) filter (where p.last) over () as stop_at, 'entity' as kind, 'added' as action, t.scope, t.subject, t.detail, t.created_by, t.created_at
         from am_recent_page('graph_entities', $5::int, $4::int, $1::boolean, $2::text[], $3::text, ($6::bigint[])[1]) p
         left join lateral (select t.scope, t.name as subject, t.entity_type as detail, t.created_by, t.created_at from graph_entities t where (p.kept or p.last) and t.id = p.id offset 0) t on true
        order by p.kept desc, p.id desc
        limit $4::int)
      union all
      (select 'graph_relations' as source, p.id, p.kept, max(p.id) filter (where p.last) over () as stop, max(t.created_at) filter (where p.last) over () as stop_at, 'relation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
         from am_recent_page('graph_relations', $5::int, $4::int, $1::boolean, $2::text[], $3::text, ($6::bigint[])[2]) p
         left join lateral (select t.scope, t.from_name as subject, t.relation_type || ' → ' || t.to_name as detail, t.created_by, t.created_at from graph_relations t where (p.kept or p.last) and t.id = p.id offset 0) t on true
        order by p.kept desc, p.id desc
        limit $4::int)
      union all
      (select 'graph_observations' as source, p.id, p.kept, max(p.id) filter (where p.last) over () as stop, max(t.created_at) filter (where p.last) over () as stop_at, 'observation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
         from am_recent_page('graph_observations', $5::int, $4::int, $1::boolean, $2::text[], $3::text, ($6::bigint[])[3]) p
         left join lateral (select g.scope, g.name as subject, left(t.content, 200) as detail, t.created_by, t.created_at from graph_observations t join graph_entities g on g.id = t.entity_id where (p.kept or p.last) and t.id = p.id offset 0) t on true
        order by p.kept desc, p.id desc
        limit $4::int)
      union all
      (select 'graph_deletions' as source, p.id, p.kept, max(p.id) filter (where p.last) over () as stop, max(t.deleted_at) filter (where p.last) over () as stop_at, t.kind, 'deleted', t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at
         from am_recent_page('graph_deletions', $5::int, $4::int, $1::boolean, $2::text[], $3::text, ($6::bigint[])[4]) p
         left join lateral (select t.kind, t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at from graph_deletions t where (p.kept or p.last) and t.id = p.id offset 0) t on true
        order by p.kept desc, p.id desc
        limit $4::int)
    ) w
    left join agents a on a.id = w.created_by
   order by w.source, w.kept desc, w.id desc
