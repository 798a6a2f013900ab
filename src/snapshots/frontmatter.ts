// Splitting a Markdown file into its YAML front matter and the rest, and
// reading typed fields out of the parsed front matter with clear messages.
import { invalid } from "../errors.js";
import { fromYaml } from "./yaml.js";

interface SplitFile {
  /** The parsed front matter: a plain object. */
  fields: Record<string, unknown>;
  /** Everything after the closing "---" line (starting right after its newline). */
  rest: string;
}

/**
 * The file must start with a line "---"; the front matter ends at the next
 * line that is exactly "---". The YAML between is parsed with the yaml library.
 */
export function splitFrontMatter(raw: string): SplitFile {
  // An editor may have saved a byte-order mark; it is not part of the content.
  const text = raw.startsWith("\uFEFF") ? raw.slice(1) : raw;
  if (text.startsWith("---\r\n")) throw invalid("the file has Windows line endings (CRLF); convert it to LF line endings.");
  if (!text.startsWith("---\n")) throw invalid('no front matter: the file must start with a line "---", then YAML fields, then another "---" line.');
  const end = text.indexOf("\n---\n", 3);
  const endAtEof = text.endsWith("\n---") ? text.length - 4 : -1;
  const close = end >= 0 ? end : endAtEof;
  if (close < 0) throw invalid('the front matter is not closed: add a line "---" after its last field.');
  const yaml = text.slice(4, close + 1);
  const parsed = fromYaml(yaml, "the front matter");
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw invalid("the front matter must be YAML fields (name: …, description: …), not a list or a single value.");
  }
  return { fields: parsed as Record<string, unknown>, rest: text.slice(Math.min(close + 5, text.length)) };
}

/** Refuses fields outside `known`, naming them. */
export function assertKnownFields(fields: Record<string, unknown>, known: readonly string[], format: string): void {
  const unknown = Object.keys(fields).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw invalid(`unknown front-matter field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")} for the ${format} format (known: ${known.join(", ")}).`);
  }
}

export function requiredText(fields: Record<string, unknown>, key: string): string {
  const value = fields[key];
  if (value === undefined || value === null) throw invalid(`front matter is missing "${key}".`);
  return text(value, key);
}

export function optionalText(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  return value === undefined || value === null ? undefined : text(value, key);
}

function text(value: unknown, key: string): string {
  if (typeof value !== "string") {
    throw invalid(`front-matter field "${key}" must be text, got ${describe(value)}; put it in quotes.`);
  }
  return value;
}

export function requiredInteger(fields: Record<string, unknown>, key: string): number {
  const value = fields[key];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalid(`front-matter field "${key}" must be a whole number of at least 1, got ${describe(value)}.`);
  }
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value instanceof Date) return "a date";
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  return typeof value === "object" ? "a mapping" : `${typeof value} ${JSON.stringify(value)}`;
}
