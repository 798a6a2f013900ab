// The scope and agent-name rules, in one place: what a valid scope or agent name
// is (one message each), and what a caller may read and write. Every capability,
// the CLI and the snapshot import check through these functions. A scope's
// spelling itself is SCOPE_PATTERN (src/scope-name.ts), which config checks too.
import { forbidden, invalid } from "../errors.js";
import { SCOPE_PATTERN } from "../scope-name.js";
import type { Caller } from "./caller.js";

export const SHARED_SCOPE = "shared";
export const ALL_SCOPES = "*";

export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function validateAgentName(name: string): string {
  if (!AGENT_NAME_PATTERN.test(name)) {
    throw invalid(`Agent name "${name}" is not valid: use 1-64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. blog-writer).`);
  }
  return name;
}

/** One scope a fact, graph or export names ("*" is not a scope there). */
export function validateScope(scope: string): string {
  if (!SCOPE_PATTERN.test(scope)) {
    throw invalid(`scope "${scope}" is not valid: a scope is 1-64 lowercase letters, digits, "_" or "-" (e.g. shared, blog). Call whoami to see yours.`);
  }
  return scope;
}

/** An agent's scope list, where "*" grants every scope; duplicates are dropped. */
export function validateScopes(scopes: string[], what = "scope"): string[] {
  for (const s of scopes) {
    if (s !== ALL_SCOPES && !SCOPE_PATTERN.test(s)) {
      throw invalid(`${what} "${s}" is not valid: use 1-64 lowercase letters, digits, "_" or "-" (e.g. blog, deploy), or "*" for every scope.`);
    }
  }
  return [...new Set(scopes)];
}

/** What a caller may read, in the form the SQL filters take: `all` or a list. */
export interface ScopeFilter {
  all: boolean;
  scopes: string[];
}

export function hasAllScopes(caller: Caller): boolean {
  return caller.writeScopes.includes(ALL_SCOPES);
}

export function readableScopes(caller: Caller): ScopeFilter {
  if (hasAllScopes(caller)) return { all: true, scopes: [] };
  const scopes = new Set([SHARED_SCOPE, ...caller.writeScopes, ...caller.readScopes]);
  scopes.delete(ALL_SCOPES);
  return { all: caller.readScopes.includes(ALL_SCOPES), scopes: [...scopes].sort() };
}

export function writableScopes(caller: Caller): ScopeFilter {
  if (hasAllScopes(caller)) return { all: true, scopes: [] };
  return { all: false, scopes: [...caller.writeScopes].sort() };
}

export function canRead(caller: Caller, scope: string): boolean {
  const r = readableScopes(caller);
  return r.all || r.scopes.includes(scope);
}

export function canWrite(caller: Caller, scope: string): boolean {
  return hasAllScopes(caller) || caller.writeScopes.includes(scope);
}

export function describeScopes(filter: ScopeFilter): string {
  return filter.all ? "all scopes" : filter.scopes.join(", ") || "none";
}

export function assertCanWrite(caller: Caller, scope: string): void {
  if (!canWrite(caller, scope)) {
    throw forbidden(`You (${caller.name}) may not write to scope "${scope}". Scopes you may write: ${describeScopes(writableScopes(caller))}.`);
  }
}

export function assertCanRead(caller: Caller, scope: string): void {
  if (!canRead(caller, scope)) {
    throw forbidden(`You (${caller.name}) may not read scope "${scope}". Scopes you may read: ${describeScopes(readableScopes(caller))}.`);
  }
}

/**
 * A person, not an AI agent (kind "human"): the one test of who acts as a
 * person. Only a person signs in to the console or an OAuth consent page,
 * redacts, and voids ledger records.
 */
export const isHuman = (who: { kind: string }): boolean => who.kind === "human";

/**
 * Redaction (removing stored text for good) is for humans with write access to
 * the scope, administrators included; never an agent, which could erase the
 * evidence of its own mistakes.
 */
export const mayRedact = (caller: Caller, scope: string): boolean => isHuman(caller) && canWrite(caller, scope);

export function assertMayRedact(caller: Caller, scope: string): void {
  if (mayRedact(caller, scope)) return;
  throw forbidden(
    isHuman(caller)
      ? `${caller.name} may not write scope "${scope}", so may not redact in it. An administrator can grant it: agent-memory agent scopes ${caller.name} --scopes ${scope}.`
      : `Only a human with write access to scope "${scope}" (or an administrator) redacts; ${caller.name} is an agent. Deprecate the fact instead, or ask a person to redact it.`,
  );
}
