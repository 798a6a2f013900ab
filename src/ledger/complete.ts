// completion/complete for the handoff prompt's action and target: the actions
// and targets the ledger holds (readable by every caller, as ledger_list is),
// by prefix, each a loose scan of ledger_events_action_target_c that reads one
// index entry per distinct value found and ends at the prefix's range.
import type { Queryable } from "../db/database.js";

/** Values looked up at most: MCP's 100, plus one that tells whether more exist. */
const LOOKUP = 101;

// Every string that starts with $1 sorts below $1 || U+10FFFF in byte order.
const PREFIX_END = `$1 || chr(1114111)`;

/** Distinct actions from a prefix on. $1 prefix. */
export const ACTIONS_BY_PREFIX = `
  with recursive a(action) as (
    (select action collate "C" from ledger_events where action collate "C" >= $1 and action collate "C" < ${PREFIX_END} order by action collate "C" limit 1)
    union all
    select (select e.action collate "C" from ledger_events e where e.action collate "C" > a.action and e.action collate "C" < ${PREFIX_END} order by e.action collate "C" limit 1)
      from a where a.action is not null)
  select action from a where action is not null limit ${LOOKUP}`;

/** Distinct targets of one action from a prefix on. $1 prefix, $2 action. */
export const TARGETS_BY_PREFIX = `
  with recursive t(target) as (
    (select target collate "C" from ledger_events
      where action collate "C" = $2 and target collate "C" >= $1 and target collate "C" < ${PREFIX_END} order by target collate "C" limit 1)
    union all
    select (select e.target collate "C" from ledger_events e
             where e.action collate "C" = $2 and e.target collate "C" > t.target and e.target collate "C" < ${PREFIX_END} order by e.target collate "C" limit 1)
      from t where t.target is not null)
  select target from t where target is not null limit ${LOOKUP}`;

/** As normalizeAction spells it ("deploy-prod" is stored as deploy_prod), without its refusals: a half-typed value is no error. */
const actionSpelling = (raw: string) => raw.trim().toLowerCase().replace(/-/g, "_");

export async function completeAction(db: Queryable, prefix: string): Promise<string[]> {
  return (await db.query<{ action: string }>(ACTIONS_BY_PREFIX, [actionSpelling(prefix)])).rows.map((r) => r.action);
}

/** Targets of `action` (the argument already given); none without one. */
export async function completeTarget(db: Queryable, action: string | undefined, prefix: string): Promise<string[]> {
  if (action === undefined || action.trim() === "") return [];
  return (await db.query<{ target: string }>(TARGETS_BY_PREFIX, [prefix, actionSpelling(action)])).rows.map((r) => r.target);
}
