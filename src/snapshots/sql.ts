// SQL of export and import. Parameterized constants only. Times leave the
// database as text in one canonical form (UTC, milliseconds, truncated), so an
// export and the importer's comparison see exactly the same value.

import { isoTimeSql as TS } from "../db/iso-time.js";

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
    where e.fact_id = f.id) as events`;

/**
 * A batch of facts for export, keyset on id (file order does not matter: each
 * fact is its own file). $1 scopes or null, $2 statuses or null, $3 after id, $4 limit.
 */
export const EXPORT_FACTS = `
  select f.id, f.scope, f.name, f.description, f.type, f.status, f.version, a.name as author, f.body,
         ${TS("f.created_at")} as created, ${TS("f.updated_at")} as updated,
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

export const AGENTS = `select id, name, disabled_at is not null as disabled from agents`;

export const NOW_MS = `select ${TS("now()")} as now`;

/** Is this exact ledger event already there? (Imports skip it.) $1 kind, $2 action, $3 target, $4 actor, $5 at. */
export const LEDGER_EVENT_PRESENT = `
  select exists (
    select 1 from ledger_events e
     where e.action = $2::text and e.target = $3::text and e.kind = $1::text
       and e.actor = $4::text and e.at = $5::timestamptz) as present`;

/** The database clock (for "is that claim still live?"). */
export const CLOCK = `select date_trunc('milliseconds', clock_timestamp()) as now`;

export const RECORD_IMPORT = `
  insert into snapshot_imports (as_agent_id, os_user, source, facts_created, facts_updated, facts_unchanged, facts_invalid,
                                ledger_appended, ledger_unchanged, ledger_invalid)
  values ($1::bigint, $2::text, $3::text, $4::int, $5::int, $6::int, $7::int, $8::int, $9::int, $10::int)
  returning id, ${TS("at")} as at`;
