// The human-readable side of facts answers: what a model reads. It states the
// status of every fact so that a draft is never mistaken for a reviewed fact,
// and shows why a deprecated fact was withdrawn.
import type { FactSummary, FullFact } from "./model.js";
import type { ListResult } from "./lifecycle/list.js";
import type { RecallHit, RecallResult } from "./recall/recall.js";
import type { WordHint } from "./recall/recall-hints.js";
import { charCount, daysSinceReview, GET_HISTORY_VERSIONS } from "./rules.js";
import type { PromoteResult, StoreResult } from "./lifecycle/store.js";

/** "Stale: confirmed 2026-01-02, not reviewed for 240 days; …" for a stale fact. */
function staleNote(f: FactSummary & { stale?: boolean }): string | undefined {
  if (!f.stale || !f.statusAt) return undefined;
  const days = daysSinceReview(f.statusAt);
  return `STALE: confirmed ${f.statusAt.slice(0, 10)}, not reviewed for ${days} days. Check it still holds; if it does, confirm it again (memory_promote to confirmed, saying what you checked).`;
}

const indent = (text: string, prefix = "   ") =>
  text
    .split("\n")
    .map((line) => (line.length ? prefix + line : line))
    .join("\n");

/** "[CONFIRMED] name (scope shared, project, v2 by deployer, updated …; confirmed by reviewer at …)". */
export function headline(f: FactSummary): string {
  const promoted = f.statusBy ? `; ${f.status} by ${f.statusBy} at ${f.statusAt}` : f.status === "draft" ? "; not reviewed yet" : "";
  return `[${f.status.toUpperCase()}] ${f.name} (scope ${f.scope}, ${f.type}, v${f.version} by ${f.author}, updated ${f.updatedAt}${promoted})`;
}

/**
 * Recall's headline: "[DRAFT] name (scope shared, project, v2 by deployer on 2026-11-30)".
 * Dates only (an agent weighs a fact's age in days; memory_get has the exact
 * times). The answer's first line says what a draft is, and the scope and type
 * when every hit has the same, so those are left out here then.
 */
function recallHeadline(f: RecallHit, common: { scope?: string | undefined; type?: string | undefined }): string {
  const reviewed = f.statusBy ? `; ${f.status} by ${f.statusBy} on ${f.statusAt?.slice(0, 10)}` : "";
  const before = f.confirmedBefore ? `; v${f.confirmedBefore.version} was confirmed by ${f.confirmedBefore.by} on ${f.confirmedBefore.at.slice(0, 10)}, memory_get shows it` : "";
  const copy = f.copyOf ? `; stored as a near-copy of the confirmed ${f.copyOf.name} in ${f.copyOf.scope}: follow that one` : "";
  const successor = f.supersededBy ? `; superseded by ${f.supersededBy}: follow that one` : "";
  const scope = common.scope === undefined ? `scope ${f.scope}, ` : "";
  const type = common.type === undefined ? `${f.type}, ` : "";
  return `[${f.status.toUpperCase()}] ${f.name} (${scope}${type}v${f.version} by ${f.author} on ${f.updatedAt.slice(0, 10)}${reviewed}${before}${copy}${successor})`;
}

/**
 * The name in a reason of the form SIMILAR_ADVICE suggests: "duplicate of
 * <name>", the name (a kebab-case slug) ending the reason or followed by
 * punctuation, so that "duplicate of the deploy checklist" names no fact.
 */
const DUPLICATE_OF = /^duplicate of\s+"?([a-z0-9]+(?:-[a-z0-9]+)*)"?\s*(?:$|[.,;:)]|\s[-—(])/i;

/**
 * Why a deprecated fact is withdrawn. A copy withdrawn in favour of another
 * fact was not wrong ("do not apply" on a duplicate reads as "its content
 * is false"), so it points at the fact to read instead.
 */
function deprecationNote(f: FactSummary): string | undefined {
  if (f.status !== "deprecated") return undefined;
  const reason = f.statusReason ?? "(none given)";
  const original = DUPLICATE_OF.exec(reason)?.[1];
  return original ? `WITHDRAWN as a duplicate: read ${original} instead. Reason: ${reason}` : `WITHDRAWN — do not apply. Reason: ${reason}`;
}

/** A keyword as the caller wrote it: a quoted phrase keeps its own quotes instead of gaining escaped ones. */
function quoteKeyword(k: string): string {
  const t = k.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') && !t.slice(1, -1).includes('"') ? t : JSON.stringify(t);
}

const FIELD_WORDS = { summary: "name/description", body: "body" } as const;
const HOW_WORDS = { exact: "as written", stemmed: "by its words", similar: "nearly (typo?)", "most-words": "by most of its words" } as const;

/**
 * '"deploy", "migrations" by its words in name/description; "migartion" nearly (typo?) in body': keywords that matched alike are grouped.
 * A sentence keyword says which of its words: '"Can we deploy on Fridays?" by most of its words (deploy, Fridays) in body'.
 */
function matchWords(h: RecallHit): string {
  const groups = new Map<string, string[]>();
  for (const m of h.matches) {
    const how = `${HOW_WORDS[m.how]}${m.words ? ` (${m.words.join(", ")})` : ""} in ${FIELD_WORDS[m.in]}`;
    groups.set(how, [...(groups.get(how) ?? []), quoteKeyword(m.keyword)]);
  }
  return [...groups].map(([how, keywords]) => `${keywords.join(", ")} ${how}`).join("; ");
}

/** What a status means, said once per answer for the statuses among the hits. */
const STATUS_WORDS = {
  confirmed: "Confirmed: reviewed by someone other than its author.",
  draft: "Draft: not reviewed yet (unverified).",
  deprecated: "Deprecated: withdrawn, kept so that nobody repeats it.",
} as const;

/** The value every hit shares, when there are several hits (said once instead of on each). */
function common<T extends string>(values: T[]): T | undefined {
  return values.length > 1 && values.every((v) => v === values[0]) ? values[0] : undefined;
}

/** What an empty answer says of a CJK keyword's words (recall-hints.ts): which find facts alone, and the split to try. */
function wordHintText(h: WordHint): string {
  const found = h.words.filter((w) => w.facts > 0);
  const split = JSON.stringify(h.words.map((w) => w.word));
  if (found.length === 0) return `None of the words of ${quoteKeyword(h.keyword)} (${h.words.map((w) => w.word).join(", ")}) is found on its own either.`;
  const said = found.map((w) => `${w.word} is in ${w.facts === 1 ? "1 fact" : `${w.facts} facts`}`).join(", ");
  return `Of the words of ${quoteKeyword(h.keyword)} on their own, ${said}: try them as separate keywords, ${split}.`;
}

export function recallText(keywords: string[], r: RecallResult, hints: WordHint[] = []): string {
  const quoted = keywords.map(quoteKeyword).join(", ");
  if (r.total === 0) {
    return [
      `No facts match ${quoted} in the scopes you can read.`,
      ...hints.map(wordHintText),
      "If you learn something reusable during this task, store it with memory_store.",
    ].join(" ");
  }
  // What every hit shares (scope, type, why it matched) is said once here instead of on each hit.
  const shared = { scope: common(r.hits.map((h) => h.scope)), type: common(r.hits.map((h) => h.type)) };
  const why = common(r.hits.map(matchWords));
  const alike = [shared.type === undefined ? "" : `${shared.type} facts`, shared.scope === undefined ? "" : `in scope ${shared.scope}`].filter(Boolean);
  const statuses = (["confirmed", "draft", "deprecated"] as const).filter((s) => r.hits.some((h) => h.status === s));
  const head =
    `${r.total} fact${r.total === 1 ? " matches" : "s match"} ${quoted}` +
    (r.truncated ? `; the first ${r.hits.length} follow (narrow the keywords, filter by type, status or scope, or raise limit up to 50).` : ".") +
    (alike.length ? ` All are ${alike.join(" ")}.` : "") +
    (why === undefined ? "" : ` Each matched ${why}.`) +
    statuses.map((s) => ` ${STATUS_WORDS[s]}`).join("");
  // Two spaces of indent (not three): the body is most of an answer, and every line of it carries the indent.
  const hits = r.hits.map((h, i) => {
    const lines = [`${i + 1}. ${recallHeadline(h, shared)}`, indent(h.description, "  ")];
    if (why === undefined) lines.push(indent(`matched: ${matchWords(h)}`, "  "));
    const note = deprecationNote(h) ?? staleNote(h);
    if (note) lines.push(indent(note, "  "));
    lines.push(indent(h.body, "  "));
    if (h.bodyTruncated) {
      lines.push(indent(`[body shortened: first ${charCount(h.body)} of ${h.bodyChars} characters shown; memory_get with name "${h.name}" and scope "${h.scope}" returns it whole]`, "  "));
    }
    return lines.join("\n");
  });
  return [head, ...hits].join("\n\n");
}

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

export function promoteText(r: PromoteResult): string {
  const f = r.fact;
  const tail = r.to === "confirmed" ? "It now ranks above drafts in memory_recall." : "It stays visible in memory_recall, marked deprecated with your reason.";
  const replaced = r.superseded ? `\n"${r.superseded.name}" (scope ${r.superseded.scope}, version ${r.superseded.version}), which it replaces, is now deprecated as superseded.` : "";
  return `"${f.name}" (scope ${f.scope}, version ${f.version} by ${f.author}) moved from ${r.from} to ${r.to} by ${r.actor} at ${r.at}. Reason: ${r.reason}\n${tail}${replaced}`;
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
    ? `${r.facts.length} fact${r.facts.length === 1 ? "" : "s"} you may review: drafts (newest first), then confirmed facts marked STALE (the longest unreviewed first). Read one with memory_get, then confirm (again) or deprecate it with memory_promote and a reason.`
    : `${r.facts.length} fact${r.facts.length === 1 ? "" : "s"}, most recently changed first.`;
  const items = r.facts.map((f) => {
    const stale = staleNote(f);
    return `- ${headline(f)}\n  ${f.description}${stale ? `\n  ${stale}` : ""}`;
  });
  const more = cut.length > 0 ? cut : r.nextCursor ? [`More: call memory_list again with cursor "${r.nextCursor}" and the same filters.`] : [];
  return [head, ...items, ...more].join("\n");
}
