// Which scope each ledger action belongs to: an operator's mapping (CLI), read
// under the chain-head lock by every ledger write (am_ledger_lock_for_agent).
import { validateScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/core/database.js";
import { invalid, notFound } from "../errors.js";
import * as sql from "./sql.js";
import { normalizeAction } from "./validate.js";

export interface ActionScope {
  action: string;
  scope: string;
  setBy: string;
  setAt: Date;
}

interface ActionScopeRow {
  action: string;
  scope: string;
  set_by: string;
  set_at: Date;
}

const toActionScope = (r: ActionScopeRow): ActionScope => ({ action: r.action, scope: r.scope, setBy: r.set_by, setAt: r.set_at });

export async function setActionScope(db: Queryable, input: { action: string; scope: string; setBy: string }): Promise<ActionScope> {
  const action = normalizeAction(input.action);
  const scope = input.scope.trim();
  if (scope === "*") throw invalid(`An action belongs to one scope; "*" is not one. Name the scope whose writers may claim and record ${action}.`);
  validateScopes([scope]);
  return toActionScope((await db.query<ActionScopeRow>(sql.SET_ACTION_SCOPE, [action, scope, input.setBy])).rows[0]!);
}

/**
 * A mapping from a whole export (src/snapshots), with its author and time.
 * An action mapped here already keeps its mapping: `restored` false, and the
 * mapping in force.
 */
export async function restoreActionScope(db: Queryable, input: { action: string; scope: string; setBy: string; setAt: string }): Promise<{ restored: boolean; mapping: ActionScope }> {
  const action = normalizeAction(input.action);
  if (input.scope === "*") throw invalid(`An action belongs to one scope; "*" is not one.`);
  validateScopes([input.scope]);
  const row = (await db.query<ActionScopeRow>(sql.RESTORE_ACTION_SCOPE, [action, input.scope, input.setBy, input.setAt])).rows[0];
  if (row) return { restored: true, mapping: toActionScope(row) };
  return { restored: false, mapping: toActionScope((await db.query<ActionScopeRow>(sql.ACTION_SCOPE_OF, [action])).rows[0]!) };
}

interface OpenClaimOfAction {
  target: string;
  holder: string;
  expiresAt: Date;
}

/**
 * Live claims on an action, for the operator who moves it to another scope:
 * their holders may still record or release them (write.ts, holderMayFinish),
 * while nobody outside the new scope may claim the action again.
 */
export async function openClaimsOfAction(db: Queryable, rawAction: string, limit = 20): Promise<OpenClaimOfAction[]> {
  const rows = (await db.query<{ target: string; holder: string; expires_at: Date }>(sql.OPEN_CLAIMS_OF_ACTION, [normalizeAction(rawAction), limit])).rows;
  return rows.map((r) => ({ target: r.target, holder: r.holder, expiresAt: r.expires_at }));
}

export async function unsetActionScope(db: Queryable, rawAction: string, defaultScope: string): Promise<ActionScope> {
  const action = normalizeAction(rawAction);
  const row = (await db.query<ActionScopeRow>(sql.DELETE_ACTION_SCOPE, [action])).rows[0];
  if (!row) throw notFound(`${action} has no scope of its own; it already belongs to the default scope "${defaultScope}".`);
  return toActionScope(row);
}

export async function listActionScopes(db: Queryable): Promise<ActionScope[]> {
  return (await db.query<ActionScopeRow>(sql.LIST_ACTION_SCOPES)).rows.map(toActionScope);
}
