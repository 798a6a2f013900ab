// Hostile values for fuzzing and injection tests: unicode edge cases, control
// characters, SQL-looking text, wrong types and nested junk.
import fc from "fast-check";

/** Texts that have broken parsers, encoders and query builders before. */
const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800", // lone high surrogate
  "x\uDC00y", // lone low surrogate
  "\uDBFF\uDBFF",
  "🦜",
  "👩‍👩‍👧‍👦",
  "\u202Egnp.exe", // right-to-left override
  "\u200F\u0645\u0631\u062D\u0628\u0627", // RTL mark + Arabic
  "\uFEFFbom",
  "\u2028\u2029",
  "\t\n\r\u000B\u000C",
  "\u0007\u001B[31mred",
  "\u007F\u0085\u009F",
  "e\u0301\u0301\u0301", // stacked combining marks
  "Ω≈ç√∫˜µ≤≥÷",
  "日本語の事実",
  "한국어 사실",
  "'; drop table facts; --",
  "\" or 1=1 --",
  "' or ''='",
  "$1",
  "$$; select pg_sleep(10); $$",
  "E'\\\\x00'",
  "%",
  "_",
  "\\",
  "%_\\%",
  "null",
  "undefined",
  "NaN",
  "__proto__",
  "constructor",
  "{\"$gt\": \"\"}",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "memory://facts/shared/../secret",
  "*",
  "shared",
];

/** Any UTF-16 code unit, lone surrogates included (real text never has them; attackers do). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

export const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 20 }).map((s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-")) },
  // Long texts: over every field's limit, under the 1 MiB body limit.
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(20_000), "é".repeat(5000), "🦜".repeat(3000), "a-".repeat(200) + "a") },
);

const anyNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1.5, 1e308, -0),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Wrong types and nested structures of any depth (JSON-serialisable). */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  anyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(anyString, { maxLength: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** Usually the plausible value, sometimes a hostile string: for texts nested inside valid-looking structures. */
export function mostly<T>(plausible: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: anyString });
}

/** Texts a real agent could send: any graphemes in any script, short. */
export const text = fc.oneof(fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }), fc.constantFrom("日本語の事実", "한국어", "🦜 parrot", "\u202Ertl", "a'b\"c", "%_\\"));
export const slug = fc.oneof(fc.constantFrom("seed-fact", "fuzz-fact", "a"), fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/));
export const scope = fc.constantFrom("shared", "team");
export const factType = fc.constantFrom("feedback", "project", "reference");
export const factStatus = fc.constantFrom("draft", "confirmed", "deprecated");
export const action = fc.oneof(fc.constantFrom("publish_post", "deploy-prod", "Deploy-Prod"), fc.stringMatching(/^[a-z0-9]{1,10}([_-][a-z0-9]{1,10}){0,2}$/));
export const url = fc.oneof(fc.webUrl(), fc.constantFrom("https://example.com/x", "https://e.example/?q=' or 1=1--", "http://[::1]/", "https://例え.jp/パス"));
export const isoTime = fc.oneof(
  fc.date({ noInvalidDate: true, min: new Date("1970-01-01"), max: new Date("2100-01-01") }).map((d) => d.toISOString()),
  fc.constantFrom("2025-06-01", "2025-06-01T09:00:00+09:00"),
);
export const count = fc.integer({ min: 1, max: 50 });
export const entityName = fc.oneof(fc.constantFrom("Seed Entity", "Fuzz Entity"), text);

/** Values no field expects: hostile strings, edge-case numbers and dates, wrong types, nested junk. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom("0000-01-01", "9999-12-31T23:59:59Z", "2025-13-40", "yesterday", "javascript:alert(1)", "https://user:pw@example.com/") },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1.5, 1e308, -0) },
  { weight: 2, arbitrary: junk },
);

const EXTRA_KEYS = fc.constantFrom("extra", "__proto__", "constructor", "caller", "author", "agent", "actor", "sql");

/**
 * Arguments for a tool: a valid call, or a valid call with one field replaced by
 * a hostile value, one field missing or extra fields, or junk instead of an object.
 * Mostly-valid calls get past the schema, so the stores meet the hostile values.
 */
export function argsOf(fields: Record<string, fc.Arbitrary<unknown>>, required: string[] = []): fc.Arbitrary<unknown> {
  const valid = fc.record(fields, { requiredKeys: required });
  const keys = Object.keys(fields);
  if (keys.length === 0) return fc.oneof(valid, fc.dictionary(EXTRA_KEYS, junk, { maxKeys: 2 }), junk);
  const oneHostile = fc.tuple(valid, fc.constantFrom(...keys), hostile).map(([v, k, h]) => ({ ...v, [k]: h }));
  const oneMissing = fc.tuple(valid, fc.constantFrom(...keys)).map(([v, k]) => Object.fromEntries(Object.entries(v).filter(([key]) => key !== k)));
  const withExtras = fc.tuple(valid, fc.dictionary(EXTRA_KEYS, junk, { minKeys: 1, maxKeys: 2 })).map(([v, extra]) => ({ ...extra, ...v }));
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 5, arbitrary: oneHostile },
    { weight: 1, arbitrary: oneMissing },
    { weight: 1, arbitrary: withExtras },
    { weight: 1, arbitrary: junk },
  );
}
