// A fact's whole history, for exports and the importer's comparison (history.ts).
// Times leave the database as text in one canonical form (UTC, milliseconds,
// truncated), so an export and the importer's comparison see exactly the same value.
import { isoTimeSql as TS } from "../../db/sql/iso-time.js";

/** Every version and event of fact `f`, oldest first, as JSON (agent ids and names). */
const HISTORY_COLUMNS = `
  (select json_agg(json_build_object(
            'version', v.version, 'description', v.description, 'type', v.type, 'body', v.body) order by v.version)
     from fact_versions v
    where v.fact_id = f.id) as versions,
  (select json_agg(json_build_object(
            'kind', e.kind, 'version', e.version, 'actorId', e.actor_id, 'actor', ea.name, 'at', ${TS("e.at")},
            'from', e.from_status, 'to', e.to_status, 'reason', e.reason) order by e.id)
     from fact_events e join agents ea on ea.id = e.actor_id
    where e.fact_id = f.id) as events,
  (select json_agg(json_build_object('version', r.version, 'by', ra.name, 'at', ${TS("r.redacted_at")}, 'reason', r.reason) order by r.version)
     from fact_redactions r join agents ra on ra.id = r.redacted_by
    where r.fact_id = f.id) as redactions`;

/**
 * A batch of facts for export, keyset on id (file order does not matter: each
 * fact is its own file). $1 scopes or null, $2 statuses or null, $3 after id, $4 limit.
 */
export const EXPORT_FACTS = `
  select f.id, f.scope, f.name, f.description, f.type, f.status, f.version, a.name as author, f.body,
         ${TS("f.created_at")} as created, ${TS("f.updated_at")} as updated,
         (select s.scope || '/' || s.name from facts s where s.id = f.supersedes_id) as supersedes,
         (select s.scope || '/' || s.name from facts s where s.id = f.superseded_by_id) as superseded_by,
         ${HISTORY_COLUMNS}
    from facts f
    join agents a on a.id = f.author_id
   where ($1::text[] is null or f.scope = any($1::text[]))
     and ($2::text[] is null or f.status = any($2::text[]))
     and f.id > $3::bigint
   order by f.id
   limit $4::int`;

/** How many facts an export will write (for the progress line). Same $1/$2 as EXPORT_FACTS. */
export const COUNT_EXPORT_FACTS = `
  select count(*)::int as n from facts f
   where ($1::text[] is null or f.scope = any($1::text[]))
     and ($2::text[] is null or f.status = any($2::text[]))`;

/** One fact's whole history, for the importer's comparison. The row is already locked. $1 id. */
export const FACT_HISTORY = `
  select f.id, ${HISTORY_COLUMNS}
    from facts f
   where f.id = $1::bigint`;
