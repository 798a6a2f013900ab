// Renders a fact as its snapshot file:
//
//   ---
//   <front matter: name … updated, fixed order>
//   ---
//
//   <body, with marker-like lines escaped>
//
//   <!-- agent-memory:history -->
//   ## History
//
//   ```yaml
//   - version: 1
//     event: created
//     …
//   ```
//
//   <!-- agent-memory:earlier-versions -->      (only when version > 1)
//   ## Earlier versions
//
//   ```yaml
//   - version: 1 …
//   ```
//
//   <!-- agent-memory:redactions -->            (only when a version was redacted)
//   ## Redactions
//
//   ```yaml
//   - version: 1
//     redacted by: …
//   ```
//
// Everything after the body is YAML inside fences; parse.ts reads it back with
// the same library. The same fact always renders to the same bytes.
import type { SnapshotEvent, SnapshotFact, SnapshotVersion } from "./model.js";
import { EARLIER_HEADING, EARLIER_MARKER, FENCE_CLOSE, FENCE_OPEN, HISTORY_HEADING, HISTORY_MARKER, MARKER_PREFIX, REDACTIONS_HEADING, REDACTIONS_MARKER } from "./model.js";
import { toYaml } from "./yaml.js";

/**
 * A body line that starts with (any number of backslashes and) the marker
 * prefix gets one more backslash; parse.ts removes one. Reversible for every
 * body, and it touches nothing else: only lines that could end the body early.
 */
function escapeBody(body: string): string {
  return body
    .split("\n")
    .map((line) => (isMarkerLike(line) ? `\\${line}` : line))
    .join("\n");
}

export function unescapeBody(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.startsWith("\\") && isMarkerLike(line) ? line.slice(1) : line))
    .join("\n");
}

function isMarkerLike(line: string): boolean {
  let i = 0;
  while (line[i] === "\\") i++;
  return line.startsWith(MARKER_PREFIX, i);
}

function frontMatterOf(f: SnapshotFact) {
  return {
    name: f.name,
    description: f.description,
    type: f.type,
    status: f.status,
    scope: f.scope,
    author: f.author,
    version: f.version,
    created: f.created,
    updated: f.updated,
    ...(f.supersedes ? { supersedes: f.supersedes } : {}),
    ...(f.supersededBy ? { "superseded-by": f.supersededBy } : {}),
  };
}

/** A history entry with its keys in file order; absent `from`/`reason` are left out. */
function historyEntry(e: SnapshotEvent) {
  return {
    version: e.version,
    event: e.event,
    by: e.by,
    at: e.at,
    ...(e.from === null ? {} : { from: e.from }),
    to: e.to,
    ...(e.reason === null ? {} : { reason: e.reason }),
  };
}

function versionEntry(v: SnapshotVersion) {
  return { version: v.version, type: v.type, description: v.description, body: v.body };
}

/**
 * A YAML sequence inside a fence. Every line of a top-level block sequence
 * starts with "- " or an indent (or is empty), so no line can close the fence
 * or look like a marker; checked anyway, because parse.ts relies on it.
 */
function fenced(items: unknown[]): string {
  const yaml = toYaml(items);
  for (const line of yaml.split("\n")) {
    if (line === FENCE_CLOSE || line.startsWith(MARKER_PREFIX)) throw new Error("snapshot YAML produced a line that would end its block");
  }
  return `${FENCE_OPEN}\n${yaml}${FENCE_CLOSE}\n`;
}

export function renderFactFile(f: SnapshotFact): string {
  let text = `---\n${toYaml(frontMatterOf(f))}---\n\n${escapeBody(f.body)}\n\n`;
  text += `${HISTORY_MARKER}\n${HISTORY_HEADING}\n\n${fenced(f.history.map(historyEntry))}`;
  if (f.earlier.length > 0) {
    text += `\n${EARLIER_MARKER}\n${EARLIER_HEADING}\n\n${fenced(f.earlier.map(versionEntry))}`;
  }
  if (f.redactions.length > 0) {
    text += `\n${REDACTIONS_MARKER}\n${REDACTIONS_HEADING}\n\n${fenced(f.redactions.map((r) => ({ version: r.version, "redacted by": r.by, at: r.at, reason: r.reason })))}`;
  }
  return text;
}
