// completion/complete for the handoff prompt's action and target: the actions
// and targets the ledger holds (readable by every caller, as ledger_list is),
// by prefix, each a loose scan of ledger_events_action_target_c that reads one
// index entry per distinct value found and ends at the prefix's range.
import type { Queryable } from "../db/core/database.js";
import { distinctByPrefix } from "../db/sql/prefix.js";
import { actionSpelling } from "./validate.js";

/** Distinct actions from a prefix on. $1 prefix. */
export const ACTIONS_BY_PREFIX = distinctByPrefix("ledger_events", "action");

/** Distinct targets of one action from a prefix on. $1 prefix, $2 action. */
export const TARGETS_BY_PREFIX = distinctByPrefix("ledger_events", "target", `t.action collate "C" = $2`);

export async function completeAction(db: Queryable, prefix: string): Promise<string[]> {
  return (await db.query<{ action: string }>(ACTIONS_BY_PREFIX, [actionSpelling(prefix)])).rows.map((r) => r.action);
}

/** Targets of `action` (the argument already given); none without one. */
export async function completeTarget(db: Queryable, action: string | undefined, prefix: string): Promise<string[]> {
  if (action === undefined || action.trim() === "") return [];
  return (await db.query<{ target: string }>(TARGETS_BY_PREFIX, [prefix, actionSpelling(action)])).rows.map((r) => r.target);
}
