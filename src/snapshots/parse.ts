// Reads a fact file back: either an export of this service (front matter with
// author/version/updated, then the body and the generated sections) or a file
// of the file-based memory the seeds describe (name, description, type, status,
// owner, created, optional scope; then the body). Structure only: the fact
// rules (lengths, names, lifecycle) are checked by the importer.
import * as z from "zod/v4";
import { invalid } from "../errors.js";
import { clip } from "../text.js";
import { FACT_STATUSES, type FactStatus, type PromotionTarget } from "../facts/index.js";
import { parseSince } from "../ledger/index.js";
import { assertKnownFields, optionalText, requiredInteger, requiredText, splitFrontMatter } from "./frontmatter.js";
import { unescapeBody } from "./markdown.js";
import {
  EARLIER_HEADING,
  EARLIER_MARKER,
  REDACTIONS_HEADING,
  REDACTIONS_MARKER,
  FACT_EVENT_KINDS,
  FENCE_CLOSE,
  FENCE_OPEN,
  HISTORY_HEADING,
  HISTORY_MARKER,
  isCanonicalTime,
  type SnapshotFact,
  type SnapshotVersion,
  type Unchecked,
} from "./model.js";
import { fromYaml } from "./yaml.js";

/** How much of a malformed line or value a refusal quotes. */
const QUOTED_MAX_CHARS = 60;

const SNAPSHOT_FIELDS = ["name", "description", "type", "status", "scope", "author", "version", "created", "updated", "supersedes", "superseded-by"] as const;
const SEED_FIELDS = ["name", "description", "type", "status", "owner", "created", "scope"] as const;

/** A promotion line the seeds' memory_promote appends: `> [confirmed] by reviewer: reason`. */
export interface SeedPromotion {
  to: PromotionTarget;
  by: string;
  reason: string;
}

export interface SeedFile {
  format: "seed";
  name: string;
  description: string;
  type: string;
  status: string;
  owner: string | undefined;
  /** ISO 8601 UTC with milliseconds (a bare date is midnight UTC). */
  created: string | undefined;
  scope: string | undefined;
  /** The body without its trailing promotion lines (they become promotions, not text every recall repeats). */
  body: string;
  /** The body as the file has it, promotion lines included (what imports before 1 Dec 2026 stored). */
  bodyAsWritten: string;
  promotions: SeedPromotion[];
}

export interface SnapshotFile {
  format: "snapshot";
  /** As the file has it: types are checked by the importer. */
  fact: Unchecked<Omit<SnapshotFact, "earlier">, "type"> & { earlier: Array<Unchecked<SnapshotVersion, "type">> };
}

export type ParsedFile = SeedFile | SnapshotFile;

export function parseFactFile(text: string): ParsedFile {
  const { fields, rest } = splitFrontMatter(text);
  const isSnapshot = "author" in fields || "version" in fields || "updated" in fields;
  return isSnapshot ? parseSnapshot(fields, rest) : parseSeed(fields, rest);
}

// --- export format ---

const time = z.string().refine(isCanonicalTime, { message: "must be an ISO 8601 UTC time with milliseconds, e.g. 2025-06-01T09:00:00.000Z" });

const HistoryEntry = z.strictObject({
  version: z.number().int().min(1),
  event: z.enum(FACT_EVENT_KINDS),
  by: z.string().min(1),
  at: time,
  from: z.enum(FACT_STATUSES).optional(),
  to: z.enum(FACT_STATUSES),
  reason: z.string().optional(),
});

const RedactionEntry = z.strictObject({
  version: z.number().int().min(1),
  "redacted by": z.string(),
  at: z.string(),
  reason: z.string(),
});

const EarlierEntry = z.strictObject({
  version: z.number().int().min(1),
  type: z.string(),
  description: z.string(),
  body: z.string(),
});

function parseSnapshot(fields: Record<string, unknown>, rest: string): SnapshotFile {
  assertKnownFields(fields, SNAPSHOT_FIELDS, "export");
  const created = requiredText(fields, "created");
  const updated = requiredText(fields, "updated");
  for (const [key, value] of [["created", created], ["updated", updated]] as const) {
    if (!isCanonicalTime(value)) throw invalid(`front-matter field "${key}" must be an ISO 8601 UTC time with milliseconds (e.g. 2025-06-01T09:00:00.000Z), got "${value}".`);
  }
  const { body, tail } = splitBody(rest);
  const sections = readSections(tail);
  const supersedes = optionalText(fields, "supersedes");
  const supersededBy = optionalText(fields, "superseded-by");
  return {
    format: "snapshot",
    fact: {
      name: requiredText(fields, "name"),
      description: requiredText(fields, "description"),
      type: requiredText(fields, "type"),
      status: requiredText(fields, "status") as FactStatus,
      scope: requiredText(fields, "scope"),
      author: requiredText(fields, "author"),
      version: requiredInteger(fields, "version"),
      created,
      updated,
      body,
      history: entries(sections.history, HistoryEntry, "History").map((e) => ({ ...e, from: e.from ?? null, reason: e.reason ?? null })),
      earlier: sections.earlier === undefined ? [] : entries(sections.earlier, EarlierEntry, "Earlier versions"),
      redactions:
        sections.redactions === undefined
          ? []
          : entries(sections.redactions, RedactionEntry, "Redactions").map((r) => ({ version: r.version, by: r["redacted by"], at: r.at, reason: r.reason })),
      ...(supersedes === undefined ? {} : { supersedes }),
      ...(supersededBy === undefined ? {} : { supersededBy }),
    },
  };
}

/**
 * The body runs from the blank line after the front matter to the first line
 * that is exactly the History marker (a body line like it was escaped on export).
 */
function splitBody(rest: string): { body: string; tail: string } {
  const marker = `\n${HISTORY_MARKER}\n`;
  const at = rest.indexOf(marker);
  if (!rest.startsWith("\n") || at < 1) {
    throw invalid(`the file has export front matter (author, version) but no History section: a line "${HISTORY_MARKER}" must follow the body.`);
  }
  const escaped = rest.slice(1, at);
  if (!escaped.endsWith("\n")) throw invalid(`a blank line must separate the body from the History section.`);
  return { body: unescapeBody(escaped.slice(0, -1)), tail: rest.slice(at + 1) };
}

/** The generated part of the file, line by line, in the exact layout markdown.ts writes. */
function readSections(tail: string): { history: string; earlier: string | undefined; redactions: string | undefined } {
  const lines = tail.split("\n");
  let i = 0;
  const expect = (line: string) => {
    if (lines[i] !== line) throw invalid(`the generated sections are malformed: expected "${line}" where the file has "${clip(lines[i] ?? "(end of file)", QUOTED_MAX_CHARS)}". Re-export the fact instead of editing them.`);
    i++;
  };
  const block = (): string => {
    expect(FENCE_OPEN);
    const start = i;
    while (i < lines.length && lines[i] !== FENCE_CLOSE) i++;
    if (i >= lines.length) throw invalid(`a YAML block of the generated sections is not closed with "${FENCE_CLOSE}".`);
    // The YAML's own last newline matters: a kept-chomping block (|+) ends with it.
    const yaml = `${lines.slice(start, i).join("\n")}\n`;
    i++;
    return yaml;
  };
  expect(HISTORY_MARKER);
  expect(HISTORY_HEADING);
  expect("");
  const history = block();
  let earlier: string | undefined;
  if (i < lines.length - 1 && lines[i + 1] === EARLIER_MARKER) {
    expect("");
    expect(EARLIER_MARKER);
    expect(EARLIER_HEADING);
    expect("");
    earlier = block();
  }
  let redactions: string | undefined;
  if (i < lines.length - 1 && lines[i + 1] === REDACTIONS_MARKER) {
    expect("");
    expect(REDACTIONS_MARKER);
    expect(REDACTIONS_HEADING);
    expect("");
    redactions = block();
  }
  // The file ends with exactly one newline after the last block.
  if (i !== lines.length - 1 || lines[i] !== "") throw invalid("the file has text after its generated sections; re-export it instead of editing them.");
  return { history, earlier, redactions };
}

function entries<T>(yaml: string, schema: z.ZodType<T>, section: string): T[] {
  const parsed = fromYaml(yaml, `the ${section} section`);
  if (!Array.isArray(parsed) || parsed.length === 0) throw invalid(`the ${section} section must be a non-empty YAML list.`);
  return parsed.map((item, index) => {
    const result = schema.safeParse(item);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      const where = issue.path.length > 0 ? `"${issue.path.join(".")}" ` : "";
      throw invalid(`${section} entry ${index + 1}: ${where}${issue.message}.`);
    }
    return result.data;
  });
}

// --- the seeds' file-based format ---

// Exactly the line the seeds' memory_promote appends. The trailing block of
// them becomes the fact's promotions and leaves the body (else each recall
// prints "> [confirmed] by …" above the real confirmation); the rest
// of the body is left as written.
const PROMOTION_LINE = /^> \[(confirmed|deprecated)\] by (\S+): (.+)$/;

function parseSeed(fields: Record<string, unknown>, rest: string): SeedFile {
  assertKnownFields(fields, SEED_FIELDS, "file-based memory");
  // The seeds write `${front}\n\n${body}\n`: one blank line before, one newline after.
  let body = rest.startsWith("\n") ? rest.slice(1) : rest;
  if (body.endsWith("\n")) body = body.slice(0, -1);
  return {
    format: "seed",
    name: requiredText(fields, "name"),
    description: requiredText(fields, "description"),
    type: requiredText(fields, "type"),
    status: optionalText(fields, "status") ?? "draft",
    owner: optionalText(fields, "owner"),
    created: seedTime(fields.created),
    scope: optionalText(fields, "scope"),
    ...withoutPromotions(body),
    bodyAsWritten: body,
  };
}

function seedTime(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalid(`front-matter field "created" must be a date like 2025-06-01 or an ISO 8601 time.`);
  try {
    return parseSince(value)!.toISOString();
  } catch {
    throw invalid(`front-matter field "created" must be a date like 2025-06-01 or an ISO 8601 time with a zone, got "${clip(value, QUOTED_MAX_CHARS)}".`);
  }
}

/**
 * Promotion lines in the last block of the body (blank lines between them
 * allowed), oldest first, and the body before that block. A body of nothing
 * but promotion lines stays as written (a fact needs a body).
 */
function withoutPromotions(body: string): { body: string; promotions: SeedPromotion[] } {
  const promotions: SeedPromotion[] = [];
  const lines = body.split("\n");
  let start = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const m = PROMOTION_LINE.exec(line);
    if (!m) break;
    promotions.unshift({ to: m[1] as PromotionTarget, by: m[2]!, reason: m[3]!.trim() });
    start = i;
  }
  const before = lines.slice(0, start).join("\n").trimEnd();
  return { body: promotions.length > 0 && before.trim() !== "" ? before : body, promotions };
}
