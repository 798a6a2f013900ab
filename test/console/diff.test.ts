// Body diffs in the console, line by line (new-user trial: when the old body had
// no newline at its end, its removed last line and the first added line were
// rendered as one line, "…09:00 UTC.Why: …").
import { renderToString } from "preact-render-to-string";
import { describe, expect, it } from "vitest";
import { diffRows, TextDiff } from "../../src/console/views/diff.js";

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
});
