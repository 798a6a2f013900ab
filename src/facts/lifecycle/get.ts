// One fact whole, with its history (memory_get, the console's fact page, the
// memory:// resources), in one query; the caller's readable scopes filter in SQL.
import type { Caller } from "../../auth/caller.js";
import { assertCanRead, readableScopes, validateScope } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { invalid } from "../../errors.js";
import { ambiguousFact, missingFact } from "../messages.js";
import { type FactEvent, type FactVersion, type FullFact, isoTime, type SummaryRow, toSummary } from "../model.js";
import { GET_HISTORY_VERSIONS, validateName } from "../rules.js";
import { prepared } from "../prepared.js";
import * as sql from "../sql.js";

interface JsonVersion extends Omit<FactVersion, "at"> {
  at: string;
}
interface JsonEvent extends Omit<FactEvent, "at"> {
  at: string;
}

interface GetInput {
  name: string;
  scope?: string | undefined;
  /** Show the versions before this one (and their events) instead of the newest. */
  versionsBefore?: number | undefined;
}

/**
 * One fact whole, with the newest GET_HISTORY_VERSIONS versions and their
 * events (or those before `versionsBefore`); `earlierVersions` says how many
 * older ones the answer leaves out.
 */
export async function getFact(db: Queryable, caller: Caller, input: GetInput): Promise<FullFact> {
  const name = validateName(input.name);
  const scope = input.scope === undefined ? undefined : validateScope(input.scope);
  const before = input.versionsBefore;
  if (before !== undefined && (!Number.isInteger(before) || before < 2)) {
    throw invalid(`versionsBefore must be a version number of 2 or more (the first version an earlier answer showed), got ${before}.`);
  }
  const readable = readableScopes(caller);
  const rows = (
    await db.query<SummaryRow & { body: string; versions: JsonVersion[]; events: JsonEvent[]; earlier: number } & SupersessionLinks>(sql.GET_FACT, [
      name,
      scope ?? null,
      readable.all,
      readable.scopes,
      before ?? null,
      GET_HISTORY_VERSIONS,
    ], prepared("get"))
  ).rows;
  const row = rows[0];
  if (!row) throw missingFact(caller, name, scope);
  if (rows.length > 1) throw ambiguousFact(name, rows.map((r) => r.scope));
  return {
    ...toSummary(row),
    body: row.body,
    // json_agg renders timestamps in Postgres's ISO form; normalise like every other time.
    versions: row.versions.map((v) => ({ ...v, at: isoTime(v.at) })),
    events: row.events.map((e) => ({ ...e, at: isoTime(e.at) })),
    ...(row.earlier > 0 ? { earlierVersions: row.earlier } : {}),
    ...(row.supersedes ? { supersedes: row.supersedes } : {}),
    ...(row.superseded_by ? { supersededBy: row.superseded_by } : {}),
    ...(row.replacements ? { replacements: row.replacements } : {}),
    ...(row.redactions ? { redactions: row.redactions.map((r) => ({ ...r, at: isoTime(r.at) })) } : {}),
  };
}

interface SupersessionLinks {
  supersedes: string | null;
  superseded_by: string | null;
  replacements: string[] | null;
  redactions: Array<{ version: number; by: string; at: string; reason: string }> | null;
}

/** An explicit scope filter must be one the caller may read (this says nothing about any fact). */
export function optionalReadableScope(caller: Caller, scope: string | undefined): string | undefined {
  if (scope === undefined) return undefined;
  validateScope(scope);
  assertCanRead(caller, scope);
  return scope;
}
