// completion/complete for scopes and fact names: only what the caller may read
// (or write, where the argument names a scope to write to), by prefix, each
// lookup one range of facts_scope_name_c and at most COMPLETION_LOOKUP rows.
import type { Caller } from "../auth/caller.js";
import { readableScopes, SHARED_SCOPE, writableScopes, type ScopeFilter } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { prepared } from "./prepared.js";
import { FACT_TYPES } from "./rules.js";

/** Values a completion answers at most, plus one that tells whether more exist (MCP caps an answer at 100). */
export const COMPLETION_LOOKUP = 101;

// The end of a prefix's range in byte order: every string that starts with $1
// sorts below $1 || U+10FFFF (the highest code point, highest in UTF-8 too).
const PREFIX_END = `$1 || chr(1114111)`;

/**
 * The distinct scopes of facts from a prefix on: a loose index scan, one
 * probe of facts_scope_name_c per scope found, ending at the prefix's range.
 */
export const SCOPES_BY_PREFIX = `
  with recursive s(scope) as (
    (select scope collate "C" from facts where scope collate "C" >= $1 and scope collate "C" < ${PREFIX_END} order by scope collate "C" limit 1)
    union all
    select (select f.scope collate "C" from facts f where f.scope collate "C" > s.scope and f.scope collate "C" < ${PREFIX_END} order by f.scope collate "C" limit 1)
      from s where s.scope is not null)
  select scope from s where scope is not null limit ${COMPLETION_LOOKUP}`;

/** Fact names in one scope from a prefix on. $1 prefix, $2 scope. */
export const NAMES_BY_PREFIX = `
  select name from facts
   where scope collate "C" = $2 and name collate "C" >= $1 and name collate "C" < ${PREFIX_END}
   order by name collate "C" limit ${COMPLETION_LOOKUP}`;

const byPrefix = (values: Iterable<string>, prefix: string) => [...new Set(values)].filter((v) => v.startsWith(prefix)).sort();

/** Scopes the filter allows that start with `prefix`: the caller's own list, or (for "*") the scopes facts are stored in, and shared. */
async function scopesOf(db: Queryable, filter: ScopeFilter, listed: string[], prefix: string): Promise<string[]> {
  if (!filter.all) return byPrefix(filter.scopes, prefix).slice(0, COMPLETION_LOOKUP);
  const stored = (await db.query<{ scope: string }>(SCOPES_BY_PREFIX, [prefix], prepared("complete_scopes"))).rows.map((r) => r.scope);
  return byPrefix([...stored, ...listed], prefix).slice(0, COMPLETION_LOOKUP);
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
