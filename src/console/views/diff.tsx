// A fact's diff as console markup; the diff itself and its bounds are the facts
// capability's (src/facts/review/version-diff.ts), shared with memory_review.
import { diffRows } from "../../facts/index.js";

export function TextDiff({ before, after }: { before: string; after: string }) {
  const rows = diffRows(before, after);
  if (rows === undefined) {
    return (
      <div class="diff-undiffed">
        <p class="meta">Too different to compare line by line; both versions in full:</p>
        <h4>Before</h4>
        <pre class="body">{before}</pre>
        <h4>After</h4>
        <pre class="body">{after}</pre>
      </div>
    );
  }
  return (
    <pre class="diff">
      {rows.map((r) => (
        <>
          {r.kind === "added" ? <ins>{r.text}</ins> : r.kind === "removed" ? <del>{r.text}</del> : r.text}
          {"\n"}
        </>
      ))}
    </pre>
  );
}

export function FieldChange({ label, before, after }: { label: string; before: string; after: string }) {
  if (before === after) return null;
  return (
    <p class="field-change">
      {label}: <del>{before}</del> → <ins>{after}</ins>
    </p>
  );
}
