// The secret guard on the real CLI's imports: a fact file, a ledger line or a
// graph line holding a credential is refused with the field and the kind (the
// rest is imported, as for any invalid file or line), and the secret is nowhere
// in the database afterwards.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { onlyJson, runCli } from "../support/cli.js";
import { addAgent } from "../support/service.js";
import { SAMPLES } from "./samples.js";

describe("secret guard on `agent-memory import` and `graph import`", () => {
  let tdb: TestDatabase;
  let dir: string;
  const env = () => ({ DATABASE_URL: tdb.url! });

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    await addAgent(tdb.db, "writer", { scopes: ["shared"] });
    dir = await mkdtemp(join(tmpdir(), "am-secrets-"));
    const factFile = (name: string, body: string) => `---\nname: ${name}\ndescription: Where the CI credentials are\ntype: reference\n---\n\n${body}\n`;
    await writeFile(join(dir, "reference_ci-token.md"), factFile("ci-token", `Use ${SAMPLES.github} in the release job.`));
    await writeFile(join(dir, "reference_ci-vault.md"), factFile("ci-vault", "In the vault at ci/github; rotate monthly."));
    await writeFile(
      join(dir, "ledger.jsonl"),
      `${JSON.stringify({ action: "deploy_prod", target: "api", evidence: "https://ci.example.com/run/7?access_token=Zq8wX3kL9mN2pR5tV7yB4c", actor: "writer", at: "2026-11-30T10:00:00.000Z" })}\n`,
    );
    await mkdir(join(dir, "shared"));
    await writeFile(
      join(dir, "shared", "graph.jsonl"),
      [
        { type: "entity", name: "ci", entityType: "service", observations: ["runs the release"] },
        { type: "entity", name: "stripe", entityType: "service", observations: [`key ${SAMPLES.stripe}`] },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n") + "\n",
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses each file or line that holds a credential and imports the rest; the secrets are nowhere in the database", async () => {
    const result = await runCli(["import", dir, "--as", "writer", "--json"], env());
    expect(result.code).toBe(1);
    const report = onlyJson<{
      facts: Record<string, number>;
      files: { file: string; outcome: string; reason?: string }[];
      ledger: { appended: number; invalid: { line: number; reason: string }[] };
      graphs: { report: { entities: { created: number }; invalid: { line: number; error: string }[] } }[];
    }>(result);
    expect(report.facts).toMatchObject({ created: 1, invalid: 1 });
    expect(report.files.find((f) => f.file === "reference_ci-token.md")?.reason).toMatch(/body holds what looks like a GitHub token \(ghp_…\)/);
    expect(report.ledger.appended).toBe(0);
    expect(report.ledger.invalid).toEqual([{ line: 1, reason: expect.stringMatching(/evidence holds what looks like a password or key assigned a generated value/) }]);
    expect(report.graphs[0]!.report.entities.created).toBe(1);
    expect(report.graphs[0]!.report.invalid).toEqual([{ line: 2, error: expect.stringMatching(/observations\[0\] holds what looks like a Stripe secret key \(sk_live_…\)/) }]);
    expect(result.stdout + result.stderr).not.toContain(SAMPLES.github.slice(4));
    const found = await tdb.db.query<{ n: number }>(
      `select (select count(*) from facts where body like '%' || $1 || '%')::int + (select count(*) from graph_observations where content like '%' || $2 || '%')::int as n`,
      [SAMPLES.github.slice(4), SAMPLES.stripe.slice(8)],
    );
    expect(found.rows[0]!.n).toBe(0);
  });

  it("refuses a line of `graph import` the same way", async () => {
    const file = join(dir, "memory.jsonl");
    await writeFile(file, `${JSON.stringify({ type: "relation", from: "ci", to: "vault", relationType: `token ${SAMPLES.slack}` })}\n`);
    const result = await runCli(["graph", "import", file, "--as", "writer", "--json"], env());
    expect(result.code).toBe(1);
    expect(onlyJson<{ invalid: { error: string }[] }>(result).invalid[0]!.error).toMatch(/relationType holds what looks like a Slack token/);
  });
});
