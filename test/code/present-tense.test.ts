// Code, SQL and docs describe the present; history is CHANGELOG.md's. A comment
// that names where a rule came from ("security audit", "new-user trial", "stop
// 21", "issue 16") or what the code used to be tells a reader nothing they can
// check, and goes stale with the next change. This fails when one comes back.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const NARRATION = /new-user trial|security audit|audit finding|\b(?:stop|round|issue) \d+\b|\bused to be\b|\bthis used to\b|\bfirst audit\b|\bsecond audit\b|\bthird audit\b|\bfourth audit\b/i;

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => ext.test(f))
    .map((f) => join(dir, f));
}

const files = [
  ...filesUnder("src", /\.(tsx?|js|css)$/),
  ...filesUnder("sql", /\.sql$/),
  ...filesUnder("docs", /\.md$/),
  ...filesUnder("bench", /\.ts$/),
  ...filesUnder("scripts", /\.(ts|js|mjs|sh)$/),
  "README.md",
  ".env.example",
];

describe("code, SQL and docs describe the present", () => {
  it("no line names where a rule came from or what the code used to be", () => {
    const found = files.flatMap((file) =>
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (NARRATION.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(found).toEqual([]);
  });

  it("the check catches a narrating comment", () => {
    expect(NARRATION.test("// held every slot (security audit, stop 21)")).toBe(true);
    expect(NARRATION.test("// Nothing was changed.")).toBe(false);
  });
});
