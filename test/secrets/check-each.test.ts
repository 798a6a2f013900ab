// checkEach scans many items (an import's files or lines) in one pass: each
// item gets exactly the refusal check() gives it alone, or null, however the
// items around it read.
import { describe, expect, it } from "vitest";
import { createSecretGuard, type FieldText } from "../../src/secrets/guard.js";
import { SAMPLES } from "./samples.js";

describe("secret guard: checkEach", () => {
  const guard = createSecretGuard("refuse");
  const items: FieldText[][] = [
    [["name", "ci-vault"], ["body", "In the vault at ci/github; rotate monthly."]],
    [["name", "ci-token"], ["body", `Use ${SAMPLES.github} in the release job.`]],
    [["description", SAMPLES.aws], ["body", `${SAMPLES.pem}\nand ${SAMPLES.slack}`]],
    [["observations[0]", "short"]],
    [["body", "No credential here, only prose about tokens and keys."]],
  ];

  it("refuses each item as check() refuses it alone, and passes the others", async () => {
    const alone = await Promise.all(items.map((texts) => guard.check(texts).then(() => null, (error: Error) => error.message)));
    const together = (await guard.checkEach(items)).map((refusal) => refusal?.message ?? null);
    expect(together).toEqual(alone);
    expect(together.map((m) => m !== null)).toEqual([false, true, true, false, false]);
    expect(together[1]).toMatch(/^Refused: body holds what looks like a GitHub token \(ghp_…\)/);
    expect(together[2]).toMatch(/^Refused: description holds/);
  });

  it("passes everything when off", async () => {
    expect(await createSecretGuard("off").checkEach(items)).toEqual([null, null, null, null, null]);
  });
});
