// SQL of snapshots' own: the import's clock and its record in snapshot_imports.
// Facts, the ledger and agents are read and written through their owners'
// functions, never here (test/snapshots/own-tables.test.ts). Times leave the
// database as text in one canonical form (UTC, milliseconds, truncated).

import { isoTimeSql as TS } from "../db/sql/iso-time.js";

export const NOW_MS = `select ${TS("now()")} as now`;

export const RECORD_IMPORT = `
  insert into snapshot_imports (as_agent_id, os_user, source, facts_created, facts_updated, facts_unchanged, facts_invalid,
                                ledger_appended, ledger_unchanged, ledger_invalid)
  values ($1::bigint, $2::text, $3::text, $4::int, $5::int, $6::int, $7::int, $8::int, $9::int, $10::int)
  returning id, ${TS("at")} as at`;
