// memory_review's answer: the caller's review queue as the console shows it
// (src/facts/review/queue.ts: the same reads, the same rules), with each updated
// draft's diff computed by the one diff rule (src/facts/review/version-diff.ts), so that a
// client without MCP Apps, a model and the review app all get the same thing.
import type { Caller } from "../../../auth/caller.js";
import type { Database } from "../../../db/core/database.js";
import { type DiffLine, diffRows } from "../version-diff.js";
import { headline } from "../../format.js";
import type { FactSummary } from "../../model.js";
import { reviewQueue, staleQueue } from "../queue.js";
import type { FactType } from "../../rules.js";

/** Drafts per page: each carries its whole body (and the previous one), as on the console's page. */
const REVIEW_PAGE_SIZE = 10;

interface ReviewDraft extends FactSummary {
  body: string;
  /** The version before (an updated fact); null for a new one. */
  previous: { description: string; type: FactType; body: string } | null;
  /** The body's line diff against previous; null for a new fact, or when too different to diff (show both whole). */
  diff: DiffLine[] | null;
}

interface ReviewAnswer {
  drafts: ReviewDraft[];
  /** Drafts waiting in all (up to a cap; countCapped past it). */
  draftCount: number;
  /** Stale confirmed facts to confirm again or deprecate; on the first page only. */
  stale: Array<FactSummary & { body: string; staleDays: number }>;
  staleCount: number;
  countCapped: boolean;
  nextCursor: string | null;
}

interface ReviewOptions {
  staleAfterDays: number;
  scanMax: number;
  duplicateTimeoutMs: number;
}

export async function reviewAnswer(db: Database, caller: Caller, cursor: string | undefined, options: ReviewOptions): Promise<ReviewAnswer> {
  const bounds = { scanMax: options.scanMax, limit: REVIEW_PAGE_SIZE };
  // The similar-facts lookup is the console's advice beside a card; the answer leaves it out (it names memory_recall for that).
  const [queue, stale] = await Promise.all([
    reviewQueue(db, caller, { ...bounds, cursor, similar: false, duplicateTimeoutMs: options.duplicateTimeoutMs }),
    cursor === undefined ? staleQueue(db, caller, { ...bounds, staleAfterDays: options.staleAfterDays }) : undefined,
  ]);
  return {
    drafts: queue.items.map(({ similar: _similar, seq: _seq, ...item }) => ({
      ...item,
      diff: item.previous === null ? null : (diffRows(item.previous.body, item.body) ?? null),
    })),
    draftCount: queue.count,
    stale: stale?.items ?? [],
    staleCount: stale?.count ?? 0,
    countCapped: queue.countCapped || (stale?.countCapped ?? false),
    nextCursor: queue.nextCursor,
  };
}

export function reviewText(r: ReviewAnswer): string {
  const plus = r.countCapped ? "+" : "";
  const lines = [`Review queue: ${r.draftCount}${plus} draft(s) by others, ${r.staleCount}${plus} stale fact(s). Act with memory_promote (name, scope, to, reason, version).`];
  for (const d of r.drafts) {
    lines.push("", headline(d), `  ${d.description}`, d.previous ? `  Updated from v${d.version - 1}; body diff:` : "  New fact; body:");
    const shown = d.diff ?? (d.previous ? null : d.body.split("\n").map((text) => ({ kind: "same" as const, text })));
    if (shown) for (const row of shown) lines.push(`  ${row.kind === "added" ? "+" : row.kind === "removed" ? "-" : " "} ${row.text}`);
    else lines.push("  (too different to diff line by line; memory_get shows both versions)");
  }
  for (const s of r.stale) lines.push("", `${headline(s)} — stale, not reviewed for ${s.staleDays} days`, `  ${s.description}`);
  if (r.nextCursor) lines.push("", "More drafts: call again with cursor = nextCursor.");
  if (r.drafts.length === 0 && r.stale.length === 0) lines.push("", "Nothing waits for your review.");
  return lines.join("\n");
}
