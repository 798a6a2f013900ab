// What changed between two versions of a fact, line by line: one rule for
// every place that shows a diff (the console's review queue, memory_review and
// its review app).
//
// Diffs run on the service's one event loop, and agents write the texts: an
// unbounded line diff of two 2,000-line bodies that share nothing took 2.3 s
// (quadratic), and every agent's call and /healthz waited. So the diff's work is
// bounded before it starts and while it runs; past a bound the two versions are
// shown one after the other, undiffed.
import { diffLines } from "diff";

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** Lines per version past which no diff is tried. */
export const DIFF_MAX_LINES = 2_000;
/** Lines added plus removed past which the diff gives up (Myers' work grows with lines × edits). */
export const DIFF_MAX_EDITS = 200;
/** Wall-clock backstop of one diff, in milliseconds. */
const DIFF_TIMEOUT_MS = 20;

const linesOf = (text: string) => {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
};

/**
 * At least how many lines a line diff must add or remove: those of one version
 * that the other lacks, counted as multisets (every edit script removes and
 * adds at least these). Linear, so two versions that share little are told
 * apart before the quadratic search starts.
 */
function editsAtLeast(before: string[], after: string[]): number {
  const balance = new Map<string, number>();
  for (const line of before) balance.set(line, (balance.get(line) ?? 0) + 1);
  for (const line of after) balance.set(line, (balance.get(line) ?? 0) - 1);
  let edits = 0;
  for (const n of balance.values()) edits += Math.abs(n);
  return edits;
}

/**
 * The lines of both texts, each once, marked kept, removed or added; undefined
 * when the diff would cost more than its bounds allow. Each diff part is split
 * into its lines: rendered as whole parts, a removed last line without a
 * newline would run into the first added one ("…09:00 UTC.Why: …" on one
 * line). A missing newline at the end is no change of its own.
 */
export function diffRows(before: string, after: string): DiffLine[] | undefined {
  const a = linesOf(before);
  const b = linesOf(after);
  if (a.length > DIFF_MAX_LINES || b.length > DIFF_MAX_LINES || editsAtLeast(a, b) > DIFF_MAX_EDITS) return undefined;
  const parts = diffLines(before, after, { ignoreNewlineAtEof: true, maxEditLength: DIFF_MAX_EDITS, timeout: DIFF_TIMEOUT_MS });
  if (parts === undefined) return undefined;
  const rows: DiffLine[] = [];
  for (const part of parts) {
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    for (const text of linesOf(part.value)) rows.push({ kind, text });
  }
  return rows;
}
