// The console's activity feed over the graph: one fixed statement with typed
// parameters, apart from the graph's reads (read-sql.ts) because it reads
// through am_recent_page, not through the reads' builders.
import { isoTimeSql as ISO } from "../db/iso-time.js";

/**
 * Recent graph writes (entities, relations, observations created, and what
 * delete_* removed: graph_deletions), newest first, in readable scopes,
 * optionally by one agent. Each part is read by am_recent_page (sql/000034):
 * each readable scope through the table's (scope, id) index backwards (ids
 * follow insertion order), at most $5 rows of every scope together (never
 * fewer than $4 + 1 per scope), so the read does not grow with what others
 * wrote in scopes the reader cannot see. Kept writes first, newest first, at
 * most $4; `cut` (on every row) says that a walk stopped at its bound: only an
 * actor filter can make it. A walk that stopped with nothing kept comes back
 * as rows that are not kept and have no write columns.
 * $1 all scopes, $2 readable scopes, $3 agent name or null, $4 limit, $5 rows
 * read at most per part.
 */
const recentPage = (source: string) => `am_recent_page('${source}', $5::int, $4::int, $1::boolean, $2::text[], $3::text) p`;
// One lookup by primary key per row kept: OFFSET 0 keeps the subquery apart,
// so the planner cannot hash-join the whole table instead.
const byId = (select: string) => `left join lateral (${select} and t.id = p.id offset 0) t on true`;
export const RECENT_GRAPH_WRITES = `
  select w.kept, bool_or(w.last) over () as cut,
         w.kind, w.action, w.scope, w.subject, w.detail, a.name as actor, ${ISO("w.created_at")} as at
    from (
      select p.kept, p.last, 'entity' as kind, 'added' as action, t.scope, t.subject, t.detail, t.created_by, t.created_at
        from ${recentPage("graph_entities")}
        ${byId("select t.scope, t.name as subject, t.entity_type as detail, t.created_by, t.created_at from graph_entities t where p.kept")}
      union all
      select p.kept, p.last, 'relation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
        from ${recentPage("graph_relations")}
        ${byId("select t.scope, t.from_name as subject, t.relation_type || ' → ' || t.to_name as detail, t.created_by, t.created_at from graph_relations t where p.kept")}
      union all
      select p.kept, p.last, 'observation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at
        from ${recentPage("graph_observations")}
        ${byId("select g.scope, g.name as subject, left(t.content, 200) as detail, t.created_by, t.created_at from graph_observations t join graph_entities g on g.id = t.entity_id where p.kept")}
      union all
      select p.kept, p.last, t.kind, 'deleted', t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at
        from ${recentPage("graph_deletions")}
        ${byId("select t.kind, t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at from graph_deletions t where p.kept")}
    ) w
    left join agents a on a.id = w.created_by
   order by w.kept desc, w.created_at desc
   limit $4::int`;
