// The human-readable side of facts answers, shared by each part's own format.ts:
// every fact's status is stated so that a draft is never mistaken for a reviewed
// fact, and a deprecated fact says why it was withdrawn.
import type { FactSummary } from "./model.js";
import { daysSinceReview } from "./rules.js";

/** "Stale: confirmed 2026-01-02, not reviewed for 240 days; …" for a stale fact. */
export function staleNote(f: FactSummary & { stale?: boolean }): string | undefined {
  if (!f.stale || !f.statusAt) return undefined;
  const days = daysSinceReview(f.statusAt);
  return `STALE: confirmed ${f.statusAt.slice(0, 10)}, not reviewed for ${days} days. Check it still holds; if it does, confirm it again (memory_promote to confirmed, saying what you checked).`;
}

export const indent = (text: string, prefix = "   ") =>
  text
    .split("\n")
    .map((line) => (line.length ? prefix + line : line))
    .join("\n");

/** "[CONFIRMED] name (scope shared, project, v2 by deployer, updated …; confirmed by reviewer at …)". */
export function headline(f: FactSummary): string {
  const promoted = f.statusBy ? `; ${f.status} by ${f.statusBy} at ${f.statusAt}` : f.status === "draft" ? "; not reviewed yet" : "";
  return `[${f.status.toUpperCase()}] ${f.name} (scope ${f.scope}, ${f.type}, v${f.version} by ${f.author}, updated ${f.updatedAt}${promoted})`;
}

/**
 * The name in a reason of the form SIMILAR_ADVICE suggests: "duplicate of
 * <name>", the name (a kebab-case slug) ending the reason or followed by
 * punctuation, so that "duplicate of the deploy checklist" names no fact.
 */
const DUPLICATE_OF = /^duplicate of\s+"?([a-z0-9]+(?:-[a-z0-9]+)*)"?\s*(?:$|[.,;:)]|\s[-—(])/i;

/**
 * Why a deprecated fact is withdrawn. A copy withdrawn in favour of another
 * fact was not wrong ("do not apply" on a duplicate reads as "its content
 * is false"), so it points at the fact to read instead.
 */
export function deprecationNote(f: FactSummary): string | undefined {
  if (f.status !== "deprecated") return undefined;
  const reason = f.statusReason ?? "(none given)";
  const original = DUPLICATE_OF.exec(reason)?.[1];
  return original ? `WITHDRAWN as a duplicate: read ${original} instead. Reason: ${reason}` : `WITHDRAWN — do not apply. Reason: ${reason}`;
}

