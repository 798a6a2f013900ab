// The console's activity feed over the graph: one fixed statement with typed
// parameters, apart from the graph's reads (read-sql.ts) because it reads
// through am_recent_page, not through the reads' builders.
import { isoTimeSql as ISO } from "../db/sql/iso-time.js";

/**
 * Recent graph writes (entities, relations, observations created, and what
 * delete_* removed: graph_deletions), newest first, in readable scopes,
 * optionally by one agent. Each part (`source`, its table) is read by
 * am_recent_page: each readable scope through the
 * table's (scope, id) index backwards (ids follow insertion order), at most $5
 * rows of every scope together (never fewer than $4 + 1 per scope), so the
 * read does not grow with what others wrote in scopes the reader cannot see,
 * and only below that table's id in $6 (null: from the newest; the console's
 * "Older" pages). Kept writes first, each part's newest first, at most $4 per
 * part; the caller merges the parts. `stop` (on every row of a part) is the
 * highest id at which one of its walks stopped at its bound, or null: only an
 * actor filter can make one stop; `stop_at` the time of the newest row a walk
 * stopped at. A walk that stopped with nothing kept
 * comes back as rows that are not kept and have no write columns.
 * $1 all scopes, $2 readable scopes, $3 agent name or null, $4 limit, $5 rows
 * read at most per part, $6 ids to read below (entities, relations,
 * observations, deletions; null elements: from the newest).
 */
const recentPage = (source: string, before: number) =>
  `am_recent_page('${source}', $5::int, $4::int, $1::boolean, $2::text[], $3::text, ($6::bigint[])[${before}]) p`;
// One lookup by primary key per row kept (and where a walk stopped): OFFSET 0 keeps the subquery apart,
// so the planner cannot hash-join the whole table instead.
const byId = (select: string) => `left join lateral (${select} where (p.kept or p.last) and t.id = p.id offset 0) t on true`;
// Each part's kept rows, newest first, at most $4, and its stop.
const part = (source: string, before: number, columns: string, select: string, time: string) => `
      (select '${source}' as source, p.id, p.kept, max(p.id) filter (where p.last) over () as stop, max(${time}) filter (where p.last) over () as stop_at, ${columns}
         from ${recentPage(source, before)}
         ${byId(select)}
        order by p.kept desc, p.id desc
        limit $4::int)`;
export const RECENT_GRAPH_WRITES = `
  select w.source, w.id, w.kept, w.stop, ${ISO("w.stop_at")} as stop_at,
         w.kind, w.action, w.scope, w.subject, w.detail, a.name as actor, ${ISO("w.created_at")} as at
    from (${part("graph_entities", 1, "'entity' as kind, 'added' as action, t.scope, t.subject, t.detail, t.created_by, t.created_at", "select t.scope, t.name as subject, t.entity_type as detail, t.created_by, t.created_at from graph_entities t", "t.created_at")}
      union all${part("graph_relations", 2, "'relation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at", "select t.scope, t.from_name as subject, t.relation_type || ' → ' || t.to_name as detail, t.created_by, t.created_at from graph_relations t", "t.created_at")}
      union all${part("graph_observations", 3, "'observation', 'added', t.scope, t.subject, t.detail, t.created_by, t.created_at", "select g.scope, g.name as subject, left(t.content, 200) as detail, t.created_by, t.created_at from graph_observations t join graph_entities g on g.id = t.entity_id", "t.created_at")}
      union all${part("graph_deletions", 4, "t.kind, 'deleted', t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at", "select t.kind, t.scope, t.subject, t.detail, t.deleted_by, t.deleted_at from graph_deletions t", "t.deleted_at")}
    ) w
    left join agents a on a.id = w.created_by
   order by w.source, w.kept desc, w.id desc`;
