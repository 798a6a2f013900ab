// Which graph a call touches and whether the caller may: one line per tool.
import type { AppDeps } from "../app-deps.js";
import type { Caller } from "../auth/caller.js";
import { assertCanRead, assertCanWrite } from "../auth/scopes.js";
import type { GraphWriter } from "./types.js";
import { EMBEDDED_CALL_MAX_CHARS, EMBEDDED_TEXTS_PER_CALL, MAX_CHARS_PER_CALL, MAX_TEXTS_PER_CALL } from "../limits.js";
import { resolveScope } from "./validate.js";

/**
 * GRAPH_CALL_MAX_CHARS, or by default MAX_CHARS_PER_CALL on Postgres and a
 * quarter of it on the embedded database: one connection there, so a write
 * holds every other agent for as long as it runs (measured:
 * 1,000 entities of 8 observations, 0.7 million characters, 1.8-2.3 s a call).
 */
export function graphCallMaxChars(deps: Pick<AppDeps, "config" | "db">): number {
  return deps.config.limits.graphCallMaxChars ?? (deps.db.kind === "pglite" ? EMBEDDED_CALL_MAX_CHARS : MAX_CHARS_PER_CALL);
}

export function graphWriter(deps: AppDeps, caller: Caller, scope: string | undefined): GraphWriter {
  const s = resolveScope(scope);
  assertCanWrite(caller, s);
  return {
    scope: s,
    agentId: caller.agentId,
    maxChars: deps.config.limits.graphTextMaxChars,
    maxCallChars: graphCallMaxChars(deps),
    maxCallTexts: deps.db.kind === "pglite" ? EMBEDDED_TEXTS_PER_CALL : MAX_TEXTS_PER_CALL,
    secrets: deps.secrets,
  };
}

export function readableGraph(caller: Caller, scope: string | undefined): string {
  const s = resolveScope(scope);
  assertCanRead(caller, s);
  return s;
}
