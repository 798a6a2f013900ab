// A tool call's arguments, checked in one place for every tool: every problem of
// the call in one answer, in the service's words, with the allowed values; and an
// argument the tool does not have is refused by name (with the closest known one)
// instead of being dropped, so an agent learns that it was not applied.
//
// Why the SDK does not check them itself: its tools/call handler parses the
// arguments with the registered zod schema before the callback runs and answers
// a failure with its own text ("MCP error -32602: Input validation error: …"),
// one zod message at a time and without unknown keys (a zod object strips them).
// Replacing its tools/call handler would also drop what it does after the
// callback (checking structuredContent against the output schema). So the SDK
// gets an input schema that accepts any object, carrying as JSON Schema metadata
// the real schema (zod puts an object's metadata into the JSON Schema it writes,
// which the SDK's tools/list sends as it is); the callback wrapper
// (guard.ts) then checks the arguments against the real schema.
import * as z from "zod/v4";
import { DomainError, invalid } from "../errors.js";
import { QUOTED_NAME_MAX_CHARS, SUGGESTED_NAME_MAX_CHARS } from "../limits.js";
import { clip } from "../text.js";

/** What the SDK registers: accepts any object, shows the real schema in tools/list. */
export function advertisedInputSchema(real: z.ZodObject): z.ZodObject {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(real, { target: "draft-2020-12", io: "input", override: dropSafeIntegerBounds });
  // Unknown arguments are refused (checkToolArguments), so the schema says so.
  return z.looseObject({}).meta({ ...jsonSchema, additionalProperties: false });
}

/**
 * zod writes every integer's safe range (±2^53-1) as its bounds: noise in what
 * a model reads of each tool, and no limit anyone meets.
 */
function dropSafeIntegerBounds(ctx: { jsonSchema: { minimum?: number; maximum?: number } }): void {
  if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
  if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
}

const MAX_PROBLEMS_SHOWN = 20;

/**
 * The arguments parsed by the tool's schema, or an `invalid` error listing every
 * problem: each failed rule, and each argument the tool does not have.
 */
export function checkToolArguments(toolName: string, schema: z.ZodObject, args: Record<string, unknown>): Record<string, unknown> {
  const known = Object.keys(schema.shape);
  const unknown = Object.keys(args).filter((key) => !Object.hasOwn(schema.shape, key));
  const parsed = schema.safeParse(args, { reportInput: true });
  const issues = parsed.success ? [] : parsed.error.issues;
  const count = unknown.length + issues.length;
  if (count > 0) {
    const heading = count === 1 ? "one problem" : `${count} problems`;
    // Bounded: a list of a thousand wrong items must not make a thousand-line
    // answer, and only the problems shown are put in words (a suggestion's work
    // grows with the key's length: a thousand long keys must not cost that).
    const problems = [...unknown.slice(0, MAX_PROBLEMS_SHOWN).map((key) => unknownArgumentText(key, known)), ...issues.slice(0, MAX_PROBLEMS_SHOWN).map(problemText)];
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `- ${p}`);
    if (count > MAX_PROBLEMS_SHOWN) shown.push(`- … and ${count - MAX_PROBLEMS_SHOWN} more`);
    throw invalid(`${toolName} was not run (${heading} with its arguments; fix all and call again):\n${shown.join("\n")}`);
  }
  return (parsed as { data: Record<string, unknown> }).data;
}

function unknownArgumentText(key: string, known: readonly string[]): string {
  // A key longer than any name is refused as such: no suggestion is looked for.
  const closest = key.length <= SUGGESTED_NAME_MAX_CHARS ? closestName(key, known) : undefined;
  const name = clip(key, QUOTED_NAME_MAX_CHARS);
  if (closest) return `unknown argument \`${name}\`; did you mean \`${closest}\`?`;
  return known.length === 0 ? `unknown argument \`${name}\`; this tool takes no arguments` : `unknown argument \`${name}\`; the arguments are ${known.join(", ")}`;
}

/**
 * The known name a misspelling most likely meant: the same once case, `_` and `-`
 * are ignored (ttl_seconds for ttlSeconds), or within a small edit distance
 * (one edit for short names, two from six characters on).
 */
function closestName(key: string, known: readonly string[]): string | undefined {
  const fold = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const wanted = fold(key);
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(wanted, fold(name));
    if (distance <= (wanted.length >= 6 ? 2 : 1) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance with adjacent transpositions (tpye → type is one edit). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

type Issue = z.core.$ZodIssue & { input?: unknown };

const KIND_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
};

/** One zod issue in the service's words, naming its field as a path (entities[0].name). */
function problemText(issue: Issue): string {
  const field = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("") || "arguments";
  // A rule written for agents (a refinement) already names its field.
  if (issue.code === "custom") return issue.message;
  if (!("input" in issue) || issue.input === undefined) return `${field} is required`;
  // A string's length is what a bound is about (and echoing a long text back is noise, or a secret).
  const got = typeof issue.input === "string" && (issue.code === "too_small" || issue.code === "too_big") ? ` (got ${[...issue.input].length})` : ` (got ${shown(issue.input)})`;
  switch (issue.code) {
    case "invalid_value":
      return `${field}: must be one of ${issue.values.map(String).join(", ")}${got}`;
    case "invalid_type":
      return `${field}: must be ${KIND_NAMES[issue.expected] ?? issue.expected}${got}`;
    case "too_small":
      return `${field}: must ${bound(issue.origin, "least", issue.minimum, issue.inclusive)}${got}`;
    case "too_big":
      return `${field}: must ${bound(issue.origin, "most", issue.maximum, issue.inclusive)}${got}`;
    default:
      return `${field}: ${issue.message}${got}`;
  }
}

function bound(origin: string, side: "least" | "most", limit: number | bigint, inclusive = true): string {
  const n = Number(limit);
  if (origin === "array" || origin === "set") return `have at ${side} ${n} item${n === 1 ? "" : "s"}`;
  if (origin === "string") return `be at ${side} ${n} character${n === 1 ? "" : "s"} long`;
  if (!inclusive) return `be ${side === "least" ? "more" : "less"} than ${n}`;
  return `be at ${side} ${n}`;
}

/** A short rendering of what was sent: the value for a scalar, its kind otherwise. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${typeof value === "string" ? "a text of" : "a value of"} ${text.length} characters` : text;
}

/**
 * A store's rule (a validateX that throws `invalid`) run as part of the argument
 * check, so that a call breaking it and another rule hears of both at once. The
 * rule stays in its own module, and the store still applies it (the console and
 * the CLI reach the store without this check).
 */
export function withRule<S extends z.ZodType>(schema: S, rule: (value: z.output<S>) => unknown): S {
  return schema.superRefine((value, ctx) => {
    try {
      rule(value);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "invalid") throw error;
      ctx.addIssue({ code: "custom", message: error.message });
    }
  }) as unknown as S;
}
