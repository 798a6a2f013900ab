// The secret guard's cost is linear: every rule (the preset's and ours) scans
// adversarial 100 KB texts within a fixed bound. A rule whose pattern can
// restart inside its own match (`\beyJ[\w-]{8,}\.` over "-eyJ-eyJ-eyJ…") takes
// seconds here and minutes at a megabyte; a linear one takes milliseconds, so
// the bound is far from both and holds on a loaded machine.
import { lintSource } from "@secretlint/core";
import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig, SecretLintRuleCreator } from "@secretlint/types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extraCredentialRules } from "../../src/secrets/extra-rules.js";
import "../../src/secrets/guard.js"; // turns secretlint's profiler marks off, as in the service

const SIZE = 100_000;
const BOUND_MS = 1_000;

// Pieces that start or continue a match of some rule: issuers' prefixes, the
// separators their patterns cross, and the characters their bodies repeat.
const FRAGMENTS = [
  "-eyJ", "eyJ", "eyJa.", "eyJhbGciOiJIUzI1NiJ9.", "xoxb-", "xoxb-1-", "a-", "SG.", "SG.a.", "http://a:", "https://a:b@", "@",
  "-----BEGIN PRIVATE KEY-----\n", "-----BEGIN EC PRIVATE KEY-----", "-----END PRIVATE KEY-----", "MII", "b3BlbnNzaC1rZXktdjE",
  "_authToken=", "mongodb://", "mongodb://a:", "mysql://a:b@", "postgres://", "postgresql://u:", "ghp_", "github_pat_",
  "sk-", "sk-proj-", "T3BlbkFJ", "sk-ant-api03-", "AA", "ops_ey", "fQ=", "npm_", "AKIA", "aws_secret_access_key=", "AWS_ACCOUNT_ID=",
  "lin_api_", "shpat_", "https://hooks.slack.com/services/T", "/B", "glpat-", "sk_live_", "AccountKey=", "1Q~", "AIza", "hf_",
  "amk_", "amr_", "Bearer ", "Authorization: Basic ", "password=", "DB_PASSWORD=", "secret_key: ", "token: ", "x-oauth-basic@github.com/",
  '"private_key": "', '{"type": "service_account", ', "{", "[", '"', " ", "\n", "\t", "=", ".", "-", "_", "/", "+", "~", ":", "a", "Z", "9", "A1b2",
];

const fill = (piece: string) => piece.repeat(Math.ceil(SIZE / piece.length)).slice(0, SIZE);

/** Fixed adversarial texts: each fragment repeated, and each followed by a token body. */
const FIXED = FRAGMENTS.flatMap((f) => [fill(f), fill(`${f}Ab9${"x".repeat(40)}`), fill(`${f}${"a-".repeat(30)}`)]);

// Random concatenations of the fragments (a fixed seed: the same texts on every run).
const RANDOM = fc.sample(
  fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.stringMatching(/^[A-Za-z0-9_-]{1,60}$/)), { minLength: 20, maxLength: 200 }).map((parts) => fill(parts.join(""))),
  { numRuns: 12, seed: 20_261_203 },
);

const RULES: SecretLintRuleCreator[] = [...(presetRules as SecretLintRuleCreator[]), extraCredentialRules];

async function slowest(rule: SecretLintRuleCreator): Promise<{ ms: number; sample: string }> {
  const config: SecretLintCoreConfig = { rules: [{ id: rule.meta.id, rule }] };
  let worst = { ms: 0, sample: "" };
  for (const content of [...FIXED, ...RANDOM]) {
    const started = performance.now();
    await lintSource({ source: { filePath: "text", content, contentType: "text" }, options: { config, noPhysicFilePath: true, maskSecrets: true } });
    const ms = performance.now() - started;
    if (ms > worst.ms) worst = { ms, sample: content.slice(0, 40) };
  }
  return worst;
}

describe("the secret guard's cost", () => {
  it.each(RULES.map((r) => [r.meta.id, r] as const))("%s scans every adversarial 100 KB text within the bound", async (_id, rule) => {
    const worst = await slowest(rule);
    expect(worst.ms, `slowest on a text starting ${JSON.stringify(worst.sample)}`).toBeLessThan(BOUND_MS);
  });
});
