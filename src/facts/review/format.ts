// What a model reads of a review.
import type { PromoteResult } from "./promote.js";

export function promoteText(r: PromoteResult): string {
  const f = r.fact;
  const tail = r.to === "confirmed" ? "It now ranks above drafts in memory_recall." : "It stays visible in memory_recall, marked deprecated with your reason.";
  const replaced = r.superseded ? `\n"${r.superseded.name}" (scope ${r.superseded.scope}, version ${r.superseded.version}), which it replaces, is now deprecated as superseded.` : "";
  const told = r.readersTold
    ? `\nRead since its last confirmation by: ${r.readersTold.names.join(", ")}${r.readersTold.total > r.readersTold.names.length ? ` and ${r.readersTold.total - r.readersTold.names.length} more` : ""}; each is told at its next memory_recall.`
    : "";
  return `"${f.name}" (scope ${f.scope}, version ${f.version} by ${f.author}) moved from ${r.from} to ${r.to} by ${r.actor} at ${r.at}. Reason: ${r.reason}\n${tail}${replaced}${told}`;
}

