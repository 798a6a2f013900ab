// Code, SQL and docs describe the present; history is CHANGELOG.md's. A comment
// that names where a rule came from ("security review: …", "(audit: …)", "a new
// user's trial", "stop 21", "issue 16") or what the code used to be tells a reader
// nothing they can check, and goes stale with the next change. The check looks for
// the shape, not a list of phrases: a review, audit, trial or the like named as the
// reason (in parentheses, or as what found or showed something), a numbered stop,
// round or issue, and "used to".
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** Whatever examined the code and could be named as a reason for it. */
const SOURCE = String.raw`(?:(?:security|code|design|first|second|third|fourth|last|earlier|new[- ]user'?s?|user'?s?|operator'?s?)\s+)?(?:review|audit|trial|pen-?test|assessment|inspection)s?`;
const NARRATION = new RegExp(
  [
    // "(security review: …", "(audit: ten …", "(security audit)", "(a new user's trial)"
    String.raw`\(\s*(?:an?\s+|the\s+)?${SOURCE}\s*[:)]`,
    // "… a new user's trial meant 30 days", "the security audit found"
    String.raw`\b(?:new[- ]user'?s?|user'?s?|first[- ]week)\s+trials?\b`,
    String.raw`\b(?:security|code|design)\s+(?:review|audit)s?\b`,
    String.raw`\b${SOURCE}\s+(?:found|showed|caught|flagged|revealed|finding|findings|meant)\b`,
    String.raw`\b(?:found|caught|reported|raised|flagged|shown)\s+(?:by|in|during)\s+(?:an?\s+|the\s+)?${SOURCE}`,
    String.raw`\b(?:stop|round|issue)\s+\d+\b`,
    String.raw`\bused to be\b|\bthis used to\b`,
  ].join("|"),
  "i",
);

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

  it("the check catches a narrating comment by its shape, and leaves the present alone", () => {
    for (const narration of [
      "// held every slot (security audit, stop 21)",
      "// Per-agent fairness in front of the database (security review: on the",
      "// destroyed on accept reads as \"fetch failed\" (audit: ten",
      " * token that expired before it was stored (a new user's trial meant 30 days).",
      "// the limit a design review found too low",
      "// as the penetration test showed, (pentest: 3 hosts)",
      "// found during the third audit",
    ]) {
      expect(NARRATION.test(narration), narration).toBe(true);
    }
    for (const present of [
      "// Nothing was changed.",
      "// Audit: walk the whole chain in seq order, one batch at a time",
      "## Audit: `ledger verify` and `ledger export`",
      "// Drafts wait for review, oldest first",
      "What an auditor can check, and what is outside the database",
      "// a reviewer confirms it (review queue)",
      "-- A fact was deprecated (a review, a supersession, an import's replay): every",
      "query(REVIEWS, [days])",
    ]) {
      expect(NARRATION.test(present), present).toBe(false);
    }
  });
});
