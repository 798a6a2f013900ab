// What a model reads of a store, a fact whole and a page of facts.
import { deprecationNote, headline, indent, staleNote } from "../format.js";
import type { FullFact } from "../model.js";
import { GET_HISTORY_VERSIONS } from "../rules.js";
import type { ListResult } from "./list.js";
import type { StoreResult } from "./store.js";

export function storeText(r: StoreResult): string {
  const f = r.fact;
  switch (r.outcome) {
    case "created":
      return (
        `Stored "${f.name}" in scope ${f.scope} as a draft (version 1, by you). Someone else must review it: another agent or a human confirms it with memory_promote.` +
        (r.supersedes ? ` Once confirmed, it replaces "${r.supersedes}", which is then deprecated; until then that fact stays as it is.` : "") +
        similarText(r)
      );
    case "updated":
      return `Stored version ${f.version} of "${f.name}" in scope ${f.scope} as a draft (version ${r.previousVersion} stays in its history). Changed content needs a fresh review: someone other than you confirms it with memory_promote.`;
    case "unchanged":
      return `"${f.name}" in scope ${f.scope} already has exactly this content at version ${f.version} (${f.status}); nothing was changed.`;
  }
}

/** What to do about a duplicate warning; in the text and, for clients that show their model only the structured answer, beside `similar`. */
export const SIMILAR_ADVICE =
  'If this is the same fact, update that one instead (memory_store with its name and version) and deprecate this draft (memory_promote to deprecated, reason "duplicate of <name>").';

function similarText(r: StoreResult): string {
  if (!r.similar || r.similar.length === 0) return "";
  const items = r.similar.map((s) => `- ${s.name} (${s.status}, scope ${s.scope}, v${s.version}): ${s.description}`);
  return `\nSimilar facts exist:\n${items.join("\n")}\n${SIMILAR_ADVICE}`;
}

export function fullFactText(f: FullFact): string {
  const lines = [headline(f), f.description];
  const note = deprecationNote(f);
  if (note) lines.push(note);
  else if (f.statusReason) lines.push(`Reason for ${f.status}: ${f.statusReason}`);
  if (f.supersededBy) lines.push(`Superseded by ${f.supersededBy}: read that fact instead.`);
  if (f.supersedes) lines.push(`Replaces ${f.supersedes}${f.status === "draft" ? " once someone other than its author confirms it" : ""}.`);
  if (f.replacements) lines.push(`Proposed replacements (drafts): ${f.replacements.join(", ")}.`);
  for (const r of f.redactions ?? []) lines.push(`Version ${r.version} was redacted by ${r.by} at ${r.at}: ${r.reason}`);
  const first = f.versions[0]?.version ?? 0;
  const last = f.versions[f.versions.length - 1]?.version ?? 0;
  const history =
    f.versions.length === f.version
      ? `History, oldest first (${f.version} version${f.version === 1 ? "" : "s"}):`
      : `History of versions ${first}-${last} of ${f.version}, oldest first:`;
  lines.push("", f.body, "", history);
  for (const e of f.events) {
    const move = e.from ? `${e.from} → ${e.to}` : e.to;
    lines.push(`- ${e.at} ${e.actor} ${e.kind} v${e.version} (${move})${e.reason ? `: ${e.reason}` : ""}`);
  }
  const earlier = f.versions.filter((v) => v.version !== f.version);
  if (earlier.length > 0) {
    lines.push("", "Earlier versions:");
    for (const v of earlier.reverse()) {
      lines.push(`- v${v.version} by ${v.author} at ${v.at} (${v.type}): ${v.description}`, indent(v.body, "    "));
    }
  }
  if (f.earlierVersions) {
    const n = f.earlierVersions;
    lines.push(
      "",
      `${n} older version${n === 1 ? " is" : "s are"} not shown (nor ${n === 1 ? "its" : "their"} events) to keep this answer small: ` +
        `memory_get with versionsBefore ${first} shows up to ${GET_HISTORY_VERSIONS} more.`,
    );
  }
  return lines.join("\n");
}

export function listText(r: ListResult, reviewable: boolean): string {
  // A cut page says so before anything else: an empty one does not mean "none".
  const cut = r.scanCut && r.nextCursor
    ? [
        `This call looked through as many facts as one call may (LIST_SCAN_MAX) without filling the page; more may match further on. ` +
          `Call memory_list again with cursor "${r.nextCursor}" and the same filters to go on.`,
      ]
    : [];
  if (r.facts.length === 0) {
    if (cut.length > 0) return [reviewable ? "Nothing for your review so far." : "No facts match so far.", ...cut].join("\n");
    return reviewable ? "No drafts or stale facts are waiting for your review." : "No facts match these filters in the scopes you can read.";
  }
  const head = reviewable
    ? `${r.facts.length} fact${r.facts.length === 1 ? "" : "s"} you may review: drafts (the longest waiting first), then confirmed facts marked STALE (the longest unreviewed first). Read one with memory_get, then confirm (again) or deprecate it with memory_promote and a reason.`
    : `${r.facts.length} fact${r.facts.length === 1 ? "" : "s"}, most recently changed first.`;
  const items = r.facts.map((f) => {
    const stale = staleNote(f);
    return `- ${headline(f)}\n  ${f.description}${stale ? `\n  ${stale}` : ""}`;
  });
  const more = cut.length > 0 ? cut : r.nextCursor ? [`More: call memory_list again with cursor "${r.nextCursor}" and the same filters.`] : [];
  return [head, ...items, ...more].join("\n");
}
