// Text rules shared by every capability, so that facts, the ledger and the graph
// refuse the same things with the same words.

/**
 * NUL cannot be stored in Postgres text, and an unpaired UTF-16 surrogate has no
 * UTF-8 form (the driver would silently store U+FFFD instead, so what is read back
 * would differ from what was written).
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Line breaks and other control characters: C0, DEL, C1 and the Unicode line/paragraph separators. */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** The refusal of such text, naming the field; never the text itself. */
export function unstorableTextMessage(field: string): string {
  return `${field} contains a NUL character or broken Unicode (an unpaired UTF-16 surrogate), which cannot be stored as written. Send plain UTF-8 text; nothing was written.`;
}

export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Length in characters (Unicode code points), as Postgres's char_length counts it. */
export function charCount(text: string, stopAfter = Infinity): number {
  let n = 0;
  for (const _ of text) if (++n > stopAfter) break;
  return n;
}

/**
 * The path of the first string anywhere in `value` that cannot be stored as
 * written (e.g. `entities[2].observations[0]`), or undefined when all can.
 */
export function findUnstorableText(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return isStorable(value) ? undefined : path || "input";
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const found = findUnstorableText(v, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * `text` cut to its first `max` characters with "…" when longer: how a refusal
 * or a trace quotes what was sent without keeping all of it. The cut never
 * splits a character in two (an unpaired surrogate half would be broken
 * Unicode), and is a string of its own: a slice in V8 is a view that keeps its
 * whole original alive, so a span holding the first 64 characters of a 900 KB
 * request id would hold all 900 KB.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${Array.from(text.slice(0, cut)).join("")}…`;
}

/** `%text%` for LIKE/ILIKE, with the wildcards and the escape character escaped, so that "50%" or "snake_case" match as written. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One zod issue as a phrase that names the field once: "target is required"
 * for a missing one, the message itself when it already names the field (rules
 * written for agents do), else "field: message". `whole` names what a path-less
 * issue is about ("the body"); without it the message stands alone.
 */
export function issueText(issue: { code: string; path: PropertyKey[]; message: string }, whole?: string): string {
  const field = issue.path.map(String).join(".");
  if (field === "") return whole === undefined ? issue.message : `${whole}: ${issue.message}`;
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return `${field} is required`;
  return issue.message.includes(field) ? issue.message : `${field}: ${issue.message}`;
}

/**
 * What a redacted text reads everywhere it was stored (a fact version, a review
 * reason, a graph deletion record). The database's triggers allow exactly this
 * overwrite once a tombstone exists; test/code/one-copy.test.ts holds
 * their spelling to this one.
 */
export const REDACTED_TEXT = "[redacted]";

