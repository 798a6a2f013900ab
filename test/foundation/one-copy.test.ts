// A rule written twice drifts apart. The ledger's action spelling and the scope
// spelling each have one constant in src/ that every check uses (the handoff
// prompt and config included); this fails when a copy of either comes back. The
// database's check constraints keep their own, as a backstop.
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

  it("the scope pattern is written once, in scope-name.ts", () => {
    expect(copiesOf(SCOPE_PATTERN)).toEqual(["scope-name.ts"]);
  });
});
