select w.kept, bool_or(w.last) over () as cut,
         w.kind, w.action, w.scope, w.subject, w.detail, a.name as actor, to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
    from (
      select p.kept, p.last, 'entity' as kind, 'added' as action, t.scope, t.subject, t.detail, t.created_by, t.created_at
        from am_recent_page('graph_entities', $5::int, $4::int, $1::boolean, $2::text[], $3::text) p
        left join lateral (select t.scope, t.name as subject, t.entity_type as detail, t.created_by, t.created_at from graph_entities t where p.kept and t.id = p.id offset 0) t on true
      union all
      select p.kept, p.last, 'relation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
        from am_recent_page('graph_relations', $5::int, $4::int, $1::boolean, $2::text[], $3::text) p
        left join lateral (select t.scope, t.from_name as subject, t.relation_type || ' → ' || t.to_name as detail, t.created_by, t.created_at from graph_relations t where p.kept and t.id = p.id offset 0) t on true
      union all
      select p.kept, p.last, 'observation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
        from am_recent_page('graph_observations', $5::int, $4::int, $1::boolean, $2::text[], $3::text) p
        left join lateral (select g.scope, g.name as subject, left(t.content, 200) as detail, t.created_by, t.created_at from graph_observations t join graph_entities g on g.id = t.entity_id where p.kept and t.id = p.id offset 0) t on true
      union all
      select p.kept, p.last, t.kind, 'deleted', t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at
        from am_recent_page('graph_deletions', $5::int, $4::int, $1::boolean, $2::text[], $3::text) p
        left join lateral (select t.kind, t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at from graph_deletions t where p.kept and t.id = p.id offset 0) t on true
    ) w
    left join agents a on a.id = w.created_by
   order by w.kept desc, w.created_at desc
   limit $4::int
