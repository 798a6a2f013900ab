// What changed between two versions of a fact, line by line, as text.
import { diffLines } from "diff";

export function TextDiff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <pre class="diff">
      {parts.map((p) => (p.added ? <ins>{p.value}</ins> : p.removed ? <del>{p.value}</del> : <span>{p.value}</span>))}
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
