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
import { SCOPE_PATTERN } from "../../src/scope-name.js";

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
});
