// Body diffs in the console, line by line (new-user trial: when the old body had
// no newline at its end, its removed last line and the first added line were
// rendered as one line, "…09:00 UTC.Why: …").
import { renderToString } from "preact-render-to-string";
import { describe, expect, it } from "vitest";
import { TextDiff } from "../../src/console/views/diff.js";
import { DIFF_MAX_EDITS, DIFF_MAX_LINES, diffRows } from "../../src/facts/review/version-diff.js";

const before = "Deploys run at 09:00 UTC.";
const after = "Deploys run at 10:00 UTC.\nWhy: the on-call shift starts at 10.\n";

describe("console body diff", () => {
  it("puts each removed and each added line on its own line", () => {
    expect(diffRows(before, after)).toEqual([
      { kind: "removed", text: "Deploys run at 09:00 UTC." },
      { kind: "added", text: "Deploys run at 10:00 UTC." },
      { kind: "added", text: "Why: the on-call shift starts at 10." },
    ]);
    const html = renderToString(TextDiff({ before, after }));
    expect(html).toBe(
      '<pre class="diff"><del>Deploys run at 09:00 UTC.</del>\n<ins>Deploys run at 10:00 UTC.</ins>\n<ins>Why: the on-call shift starts at 10.</ins>\n</pre>',
    );
  });

  it("keeps unchanged lines as plain text and treats a missing final newline as no change", () => {
    expect(diffRows("a\nb", "a\nb\nc")).toEqual([
      { kind: "same", text: "a" },
      { kind: "same", text: "b" },
      { kind: "added", text: "c" },
    ]);
    expect(renderToString(TextDiff({ before: "one\ntwo", after: "one\nthree" }))).toBe('<pre class="diff">one\n<del>two</del>\n<ins>three</ins>\n</pre>');
  });

  it("escapes what it shows", () => {
    expect(renderToString(TextDiff({ before: "<b>x</b>", after: "<script>y</script>" }))).not.toMatch(/<b>|<script>/);
  });

  it("does not diff versions past its bounds, and shows both whole instead, escaped", () => {
    // Two versions that share nothing: the unbounded diff was quadratic (2,000 lines: 2.3 s on the event loop).
    expect(diffRows("a\n".repeat(2000), "b\n".repeat(2000))).toBeUndefined();
    // More changed lines than the bound, with the rest in common.
    const base = Array.from({ length: 500 }, (_, i) => `line ${i}`);
    const changed = base.map((l, i) => (i < DIFF_MAX_EDITS ? `${l} changed` : l));
    expect(diffRows(base.join("\n"), changed.join("\n"))).toBeUndefined();
    // Longer than the bound, even with one change.
    const long = Array.from({ length: DIFF_MAX_LINES + 1 }, (_, i) => `l${i}`);
    expect(diffRows(long.join("\n"), [...long, "one more"].join("\n"))).toBeUndefined();
    // Reordered lines share every line but need many edits: the search gives up at its bound.
    const reordered = [...base].reverse();
    expect(diffRows(base.join("\n"), reordered.join("\n"))).toBeUndefined();
    const html = renderToString(TextDiff({ before: "<i>old</i>\n".repeat(300), after: "<b>new</b>\n".repeat(300) }));
    expect(html).toContain("Too different to compare line by line; both versions in full:");
    expect(html).not.toMatch(/<i>|<b>/);
  });

  it("still diffs an ordinary edit of a long body", () => {
    const base = Array.from({ length: 1500 }, (_, i) => `line ${i}`);
    const edited = base.map((l, i) => (i % 100 === 7 ? `${l} edited` : l));
    const rows = diffRows(base.join("\n"), edited.join("\n"))!;
    expect(rows.filter((r) => r.kind === "added")).toHaveLength(15);
    expect(rows.filter((r) => r.kind === "removed")).toHaveLength(15);
  });
});
