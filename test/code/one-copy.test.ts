// A rule written twice drifts apart. The ledger's action spelling and the scope
// spelling each have one constant in src/ that every check uses (the handoff
// prompt and config included); this fails when a copy of either comes back. The
// database keeps its own copy as a backstop (a row written by any path is
// checked), and the last describe holds each of those to the constant.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ACTION_PATTERN } from "../../src/ledger/validate.js";
import { LEDGER_LIMITS, REASON_MAX_CHARS } from "../../src/limits.js";
import { SCOPE_PATTERN } from "../../src/scope-name.js";
import { REDACTED_TEXT } from "../../src/text.js";

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const sources = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.tsx?$/.test(f))
  .map((f) => ({ file: f, text: readFileSync(join(src, f), "utf8") }));

/** Where the pattern's body (without ^ and $) is written, one entry per occurrence. */
function copiesOf(pattern: RegExp): string[] {
  const body = pattern.source.replace(/^\^/, "").replace(/\$$/, "");
  return sources.flatMap(({ file, text }) => text.split(body).slice(1).map(() => file));
}

describe("one copy of each spelling rule in src/", () => {
  it("the ledger action pattern is written once, in ledger/validate.ts", () => {
    expect(copiesOf(ACTION_PATTERN)).toEqual([join("ledger", "validate.ts")]);
  });

  it("the ledger action's one spelling (lower case, '-' as '_') is written once, in ledger/validate.ts", () => {
    const fold = 'replace(/-/g, "_")';
    expect(sources.flatMap(({ file, text }) => text.split(fold).slice(1).map(() => file))).toEqual([join("ledger", "validate.ts")]);
  });

  it("the scope pattern is written once, in scope-name.ts", () => {
    expect(copiesOf(SCOPE_PATTERN)).toEqual(["scope-name.ts"]);
  });
});

const sqlDir = fileURLToPath(new URL("../../sql/", import.meta.url));
const sqlText = (file: string) => readFileSync(join(sqlDir, file), "utf8");

describe("the database's backstops spell each rule as src/ does", () => {
  it("the ledger action check (am_ledger_valid_action) is ACTION_PATTERN", () => {
    expect(sqlText("functions/am_ledger_valid_action.sql")).toContain(`'${ACTION_PATTERN.source}'`);
  });

  it("the scope checks (am_valid_scope, ledger_actions_scope_format) are SCOPE_PATTERN", () => {
    expect(sqlText("functions/am_valid_scope.sql")).toContain(`'${SCOPE_PATTERN.source}'`);
    const baseline = readdirSync(join(sqlDir, "migrations")).find((f) => f.includes("baseline"))!;
    const constraint = sqlText(join("migrations", baseline)).split("\n").find((line) => line.includes("ledger_actions_scope_format"));
    expect(constraint).toContain(`'${SCOPE_PATTERN.source}'`);
  });

  it("the redaction triggers' placeholder is REDACTED_TEXT", () => {
    const files = readdirSync(join(sqlDir, "functions")).filter((f) => sqlText(join("functions", f)).includes("[redacted]"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const quoted = sqlText(join("functions", file)).match(/'[^']*redacted[^']*'/g) ?? [];
      expect(quoted.length, file).toBeGreaterThan(0);
      for (const q of quoted) expect(q, file).toBe(`'${REDACTED_TEXT}'`);
    }
  });

  it("every length check on a reason or note in the schema is its constant in src/", () => {
    const schema = readdirSync(join(sqlDir, "migrations")).map((f) => sqlText(join("migrations", f))).join("\n");
    // The bound of each check, keyed by its table and column ("ledger_events.note").
    const bounds = new Map<string, number[]>();
    let table = "";
    for (const line of schema.split("\n")) {
      table = /create table (\w+)/.exec(line)?.[1] ?? table;
      for (const m of line.matchAll(/char_length\((reason|note)\)[^)]*?(\d{3,})/g)) {
        const key = `${table}.${m[1]}`;
        bounds.set(key, [...(bounds.get(key) ?? []), Number(m[2])]);
      }
    }
    expect(Object.fromEntries(bounds)).toEqual({
      "fact_events.reason": [REASON_MAX_CHARS],
      "fact_redactions.reason": [REASON_MAX_CHARS],
      "graph_redactions.reason": [REASON_MAX_CHARS],
      "ledger_events.note": [LEDGER_LIMITS.noteMaxChars],
      "ledger_events.reason": [LEDGER_LIMITS.reasonMaxChars],
    });
  });
});
