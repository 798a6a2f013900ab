// What a model reads of a recall: the hits, why each matched, and what to try when none did.
import { deprecationNote, indent, staleNote } from "../format.js";
import { charCount } from "../rules.js";
import type { WordHint } from "./recall-hints.js";
import type { RecallHit, RecallResult } from "./recall.js";

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
  const byWords = [...groups].map(([how, keywords]) => `${keywords.join(", ")} ${how}`).join("; ");
  if (h.matchedBy === "meaning") return `by meaning alone (similarity ${h.similarity?.toFixed(2)}; none of the keywords is in it)`;
  if (h.matchedBy === "both") return `${byWords}; and by meaning (similarity ${h.similarity?.toFixed(2)})`;
  return byWords;
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

/** What an answer says when recall by meaning was left out of it. */
function meaningUnavailable(why: string): string {
  return `Matching by meaning was unavailable (${why}): these results match by words only; try other words, or recall again later.`;
}

export function recallText(keywords: string[], r: RecallResult, hints: WordHint[] = []): string {
  const quoted = keywords.map(quoteKeyword).join(", ");
  if (r.total === 0) {
    return [
      `No facts match ${quoted} in the scopes you can read.`,
      ...(r.semantic?.unavailable ? [meaningUnavailable(r.semantic.unavailable)] : []),
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
    statuses.map((s) => ` ${STATUS_WORDS[s]}`).join("") +
    (r.semantic?.unavailable ? ` ${meaningUnavailable(r.semantic.unavailable)}` : "");
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

