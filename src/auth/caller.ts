// The authenticated caller as tools see it, and the scope rules in one place.
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { forbidden } from "../errors.js";

export const SHARED_SCOPE = "shared";
export const ALL_SCOPES = "*";

export interface Caller {
  agentId: number;
  name: string;
  kind: "agent" | "human";
  writeScopes: string[];
  readScopes: string[];
  tokenId: number;
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

/** The caller travels from the bearer middleware to tools inside AuthInfo.extra. */
export function callerFromAuthInfo(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.caller as Caller | undefined;
  if (!caller) throw new Error("Tool called without an authenticated caller");
  return caller;
}
