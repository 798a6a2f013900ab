// A fact as a snapshot file carries it: the current version, its whole history
// and the content of every earlier version, so an import can recreate it
// exactly (fact_events reference (fact_id, version), so version N needs 1..N-1).
import type { FactContent, FactEvent, FactEventKind, FactStatus, FactType } from "../facts/index.js";

// A fact's history as the database holds it, read through the facts capability.
export type { FactHistory as StoredHistory, StoredFactEvent as StoredEvent } from "../facts/index.js";

// The facts capability owns the event kinds; re-exported for the snapshot code.
export { FACT_EVENT_KINDS, type FactEventKind } from "../facts/index.js";

// Every shape below derives from the facts capability's own (facts/index.ts):
// a field added there reaches the snapshot code, or fails to compile in it.

/** One line of the History section: a fact event, its kind as `event`, its actor as `by`. `at` is ISO 8601 UTC with milliseconds. */
export interface SnapshotEvent extends Omit<FactEvent, "kind" | "actor"> {
  event: FactEventKind;
  /** Agent name. */
  by: string;
}

/** The content of one version (an earlier one in a file; any one as the database holds it). */
export interface SnapshotVersion extends FactContent {
  version: number;
}

/** A field a file carries as written, before the importer checks it (e.g. `type`, checked against FACT_TYPES). */
export type Unchecked<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };

/** Everything an export file holds. Front-matter fields first, in file order. */
export interface SnapshotFact {
  name: string;
  description: string;
  type: FactType;
  status: FactStatus;
  scope: string;
  /** Author of the current version. */
  author: string;
  version: number;
  created: string;
  /** When the current version was stored. */
  updated: string;
  body: string;
  history: SnapshotEvent[];
  /** Versions 1 … version-1, in order. */
  earlier: SnapshotVersion[];
  /** The fact this one replaces, and the one that replaced it ("scope/name"), when there are. */
  supersedes?: string;
  supersededBy?: string;
  /** Redacted versions' tombstones (their text reads "[redacted]"), by version. */
  redactions: Array<{ version: number; by: string; at: string; reason: string }>;
}

/**
 * The lines that end the body and start the generated sections. Invisible when
 * GitHub renders the Markdown; a body line that starts like them is escaped
 * (markdown.ts), so the first such line in a file is always ours.
 */
export const MARKER_PREFIX = "<!-- agent-memory:";
export const HISTORY_MARKER = `${MARKER_PREFIX}history -->`;
export const EARLIER_MARKER = `${MARKER_PREFIX}earlier-versions -->`;
export const HISTORY_HEADING = "## History";
export const EARLIER_HEADING = "## Earlier versions";
export const REDACTIONS_MARKER = `${MARKER_PREFIX}redactions -->`;
export const REDACTIONS_HEADING = "## Redactions";
export const FENCE_OPEN = "```yaml";
export const FENCE_CLOSE = "```";

/** Where a fact lives in an exported tree, relative to its root, with "/" separators. */
export const factPath = (scope: string, type: string, name: string): string => `${scope}/${type}_${name}.md`;

export const LEDGER_FILE = "ledger.jsonl";
/** Recall receipts, written only by `export --receipts` (import leaves the file alone: receipts are the service's own record). */
export const RECEIPTS_FILE = "receipts.jsonl";

/** The team in a whole export: agents (never tokens) and the ledger's action-to-scope mappings. */
export const AGENTS_FILE = "agents.jsonl";
export const ACTIONS_FILE = "ledger-actions.jsonl";

/** Each scope's knowledge graph in an exported tree: `<scope>/graph.jsonl`, the reference server's memory.jsonl format. */
export const GRAPH_FILE = "graph.jsonl";
export const graphPath = (scope: string): string => `${scope}/${GRAPH_FILE}`;

/** Timestamps in snapshot files: ISO 8601, UTC, exactly three fraction digits. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isCanonicalTime(text: string): boolean {
  if (!ISO_MS.test(text)) return false;
  const time = Date.parse(text);
  return !Number.isNaN(time) && new Date(time).toISOString() === text;
}
