// What changed between two versions of a fact, line by line, as text.
import { diffLines } from "diff";

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/**
 * The lines of both texts, each once, marked kept, removed or added. Each diff
 * part is split into its lines: rendered as whole parts, a removed last line
 * without a newline ran into the first added one ("…09:00 UTC.Why: …" on one
 * line; new-user trial). A missing newline at the end is no change of its own.
 */
export function diffRows(before: string, after: string): DiffLine[] {
  const rows: DiffLine[] = [];
  for (const part of diffLines(before, after, { ignoreNewlineAtEof: true })) {
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    const lines = part.value.split("\n");
    if (part.value.endsWith("\n")) lines.pop();
    for (const text of lines) rows.push({ kind, text });
  }
  return rows;
}

export function TextDiff({ before, after }: { before: string; after: string }) {
  return (
    <pre class="diff">
      {diffRows(before, after).map((r) => (
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
