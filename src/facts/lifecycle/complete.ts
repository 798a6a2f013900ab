// completion/complete for scopes and fact names: only what the caller may read
// (or write, where the argument names a scope to write to), by prefix, each
// lookup one range of facts_scope_name_c and at most PREFIX_LOOKUP rows.
import type { Caller } from "../../auth/caller.js";
import { readableScopes, SHARED_SCOPE, writableScopes, type ScopeFilter } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { distinctByPrefix, PREFIX_LOOKUP, valuesByPrefix } from "../../db/sql/prefix.js";
import { prepared } from "../prepared.js";
import { FACT_TYPES } from "../rules.js";

/** The distinct scopes of facts from a prefix on. $1 prefix. */
export const SCOPES_BY_PREFIX = distinctByPrefix("facts", "scope");

/** Fact names in one scope from a prefix on. $1 prefix, $2 scope. */
export const NAMES_BY_PREFIX = valuesByPrefix("facts", "name", `t.scope collate "C" = $2`);

const byPrefix = (values: Iterable<string>, prefix: string) => [...new Set(values)].filter((v) => v.startsWith(prefix)).sort();

/** Scopes the filter allows that start with `prefix`: the caller's own list, or (for "*") the scopes facts are stored in, and shared. */
async function scopesOf(db: Queryable, filter: ScopeFilter, listed: string[], prefix: string): Promise<string[]> {
  if (!filter.all) return byPrefix(filter.scopes, prefix).slice(0, PREFIX_LOOKUP);
  const stored = (await db.query<{ scope: string }>(SCOPES_BY_PREFIX, [prefix], prepared("complete_scopes"))).rows.map((r) => r.scope);
  return byPrefix([...stored, ...listed], prefix).slice(0, PREFIX_LOOKUP);
}

/** Scopes the caller may read, for a scope to read from. */
export function completeReadableScope(db: Queryable, caller: Caller, prefix: string): Promise<string[]> {
  return scopesOf(db, readableScopes(caller), [SHARED_SCOPE, ...caller.readScopes, ...caller.writeScopes].filter((s) => s !== "*"), prefix);
}

/** Scopes the caller may write, for a scope to store in or review. */
export function completeWritableScope(db: Queryable, caller: Caller, prefix: string): Promise<string[]> {
  return scopesOf(db, writableScopes(caller), [SHARED_SCOPE], prefix);
}

/** Names of facts in `scope` starting with `prefix`; none when the caller may not read the scope (as if it were empty). */
export async function completeFactName(db: Queryable, caller: Caller, scope: string | undefined, prefix: string): Promise<string[]> {
  const readable = readableScopes(caller);
  if (scope === undefined || !(readable.all || readable.scopes.includes(scope))) return [];
  return (await db.query<{ name: string }>(NAMES_BY_PREFIX, [prefix, scope], prepared("complete_names"))).rows.map((r) => r.name);
}

export function completeFactType(prefix: string): string[] {
  return FACT_TYPES.filter((t) => t.startsWith(prefix));
}
