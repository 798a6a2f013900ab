// Answers shared by several facts operations. A fact in a scope the caller
// cannot read gets exactly the answer of a fact that does not exist: the text
// depends only on the request and the caller's own scopes, never on the data.
import type { Caller } from "../auth/caller.js";
import { describeScopes, readableScopes } from "../auth/scopes.js";
import { because, conflict, invalid, notFound } from "../errors.js";

export function missingFact(caller: Caller, name: string, scope: string | undefined) {
  const where = scope !== undefined ? `in scope "${scope}"` : `in the scopes you can read (${describeScopes(readableScopes(caller))})`;
  return notFound(`No fact named "${name}" ${where}. Names are exact: find facts with memory_recall (keywords) or memory_list.`);
}

export function ambiguousFact(name: string, scopes: string[]) {
  return invalid(`"${name}" exists in several scopes you can read: ${scopes.join(", ")}. Pass scope to choose one.`, { scopes });
}

/**
 * The version the caller read is not the current one. A writer (memory_store)
 * merges its change into the current version; a reviewer (memory_promote) has
 * no change to merge: it must review the version that replaced the one it read
 * before confirming or withdrawing it.
 */
export function staleVersion(
  name: string,
  scope: string,
  given: number,
  current: { version: number; author: string; updatedAt: string },
  purpose: "write" | "review" = "write",
) {
  const todo =
    purpose === "review"
      ? `It replaced the version you reviewed: read version ${current.version} with memory_get and review that one; promote it with version: ${current.version} only if it holds.`
      : `Read it with memory_get, merge your change into it, and call again with version: ${current.version}.`;
  return because(
    "changed_since_read",
    conflict(
      `version ${given} of "${name}" in scope "${scope}" is not the current one: the current version is ${current.version}, stored by ${current.author} at ${current.updatedAt}. ${todo}`,
      { currentVersion: current.version, author: current.author },
    ),
  );
}
