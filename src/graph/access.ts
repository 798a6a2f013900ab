// Which graph a call touches and whether the caller may: one line per tool.
import type { AppDeps } from "../app-deps.js";
import type { Caller } from "../auth/caller.js";
import { assertCanRead, assertCanWrite } from "../auth/scopes.js";
import type { GraphWriter } from "./types.js";
import { resolveScope } from "./validate.js";

export function graphWriter(deps: AppDeps, caller: Caller, scope: string | undefined): GraphWriter {
  const s = resolveScope(scope);
  assertCanWrite(caller, s);
  return { scope: s, agentId: caller.agentId, maxChars: deps.config.limits.graphTextMaxChars };
}

export function readableGraph(caller: Caller, scope: string | undefined): string {
  const s = resolveScope(scope);
  assertCanRead(caller, s);
  return s;
}
