// What recall asks the trigram index for, per keyword. For `%flamingo%`
// pg_trgm looks up every trigram of the keyword (fla lam ami min ing ngo), and
// GIN checks each candidate against every one of those lists: for "ing" and
// "min", lists of a third of the facts, read page by page. Asking instead for
// `%flami%ngo%` skips the two common pieces: the index returns the facts with
// the rare pieces in that order, a superset of those containing the keyword,
// and recall's levels (the exact ILIKE on each candidate) decide as before.
// At 100,000 facts that took a recall from 475 to 285 µs of Postgres time
// (bench/README.md, sixth round).
import { COMMON_TRIGRAMS } from "./common-trigrams.js";

/** One word of letters and digits: no wildcard to escape, and pg_trgm reads it as one word. */
const ONE_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * The ILIKE pattern to give the trigram index for a keyword whose exact
 * pattern is `exact`: the keyword's pieces in order, wildcards between, without
 * the common trigrams. Any text containing the keyword matches it, so nothing
 * the exact pattern finds is lost. `exact` itself for anything but one word,
 * and when fewer than two uncommon trigrams remain (one alone could be shared
 * by thousands of facts, where the full pattern intersects them all).
 * Fragments are cut from the keyword as written: ILIKE folds case on both
 * sides the same way, whatever the database's locale.
 */
export function indexPattern(text: string, exact: string): string {
  if (!ONE_WORD.test(text)) return exact;
  const chars = [...text];
  const kept: number[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) {
    if (!COMMON_TRIGRAMS.has(chars.slice(i, i + 3).join("").toLowerCase())) kept.push(i);
  }
  if (kept.length < 2 || kept.length === chars.length - 2) return exact;
  // Each kept trigram covers [i, i + 3); overlapping windows merge into one fragment. Windows that
  // only touch stay apart: joined, they would bring back the trigrams across the seam.
  const fragments: string[] = [];
  let start = kept[0]!;
  let end = start + 3;
  for (const i of kept.slice(1)) {
    if (i < end) {
      end = i + 3;
    } else {
      fragments.push(chars.slice(start, end).join(""));
      start = i;
      end = i + 3;
    }
  }
  fragments.push(chars.slice(start, end).join(""));
  return `%${fragments.join("%")}%`;
}
