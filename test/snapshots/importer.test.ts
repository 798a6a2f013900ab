// Importing the file-based memory faithfully, through the real CLI: a file that
// says status: confirmed but names no confirmer who is an agent here is
// imported as confirmed, attributed to the reserved "importer" identity, which
// can never sign in; --as still decides instead; a second import adds nothing.
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { CLI_PATH, onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addTeam, rowCounts, type Team } from "./helpers.js";

const FOLDER = join(fileURLToPath(new URL("./fixtures/", import.meta.url)), "seeds-confirmed");

interface Report {
  facts: Record<string, number>;
  confirmedByImporter: number;
  files: Array<{ file: string; outcome: string; confirmedByImporter?: true }>;
}

describe("agent-memory import of confirmed seed files (CLI, Postgres)", () => {
  let tdb: TestDatabase;
  let other: TestDatabase;
  let team: Team;
  const env = () => ({ DATABASE_URL: tdb.url! });

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does).`);
    [tdb, other] = await Promise.all([createTestDatabase("postgres"), createTestDatabase("postgres")]);
    team = await addTeam(tdb.db);
    await addTeam(other.db);
  });
  afterAll(async () => {
    await Promise.all([tdb?.drop(), other?.drop()]);
  });

  it("a dry run reports the importer's confirmations and creates nothing, not even the importer", async () => {
    const dry = await runCli(["import", FOLDER, "--dry-run", "--json"], env());
    expect(dry.code, dry.stderr).toBe(0);
    expect(onlyJson<Report>(dry)).toMatchObject({ facts: { created: 4, invalid: 0 }, confirmedByImporter: 2 });
    expect((await tdb.db.query("select 1 from agents where name = 'importer'")).rows).toHaveLength(0);
  });

  it("imports every file (exit 0): confirmed facts confirmed by the importer with the source file, drafts and deprecations as they were", async () => {
    const run = await runCli(["import", FOLDER], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("facts:  4 created, 0 updated, 0 unchanged, 0 invalid");
    expect(run.stdout).toContain('2 confirmation(s) made before the import recorded under the reserved agent "importer"');

    expect(await getFact(tdb.db, team.reviewer, { name: "cache-ttl" })).toMatchObject({
      status: "confirmed",
      author: "deployer",
      statusBy: "importer",
      statusReason: "confirmed before import (source: project_cache-ttl.md)",
    });
    expect(await getFact(tdb.db, team.reviewer, { name: "titles-short" })).toMatchObject({
      status: "confirmed",
      author: "blog-writer",
      statusBy: "importer",
      statusReason: "confirmed before import (source: feedback_titles-short.md): confirmed by editor-in-chief: 検索結果で確認した",
    });
    expect(await getFact(tdb.db, team.reviewer, { name: "runbook-location" })).toMatchObject({ status: "draft", statusBy: null });
    expect(await getFact(tdb.db, team.reviewer, { name: "old-cron" })).toMatchObject({ status: "deprecated", statusBy: "deployer", statusReason: "app-1 was retired in March" });

    const importer = (await tdb.db.query<{ kind: string; disabled: boolean; write_scopes: string[]; tokens: number }>(
      `select kind, disabled_at is not null as disabled, write_scopes, (select count(*)::int from agent_tokens t where t.agent_id = a.id) as tokens
         from agents a where name = 'importer'`,
    )).rows;
    expect(importer).toEqual([{ kind: "agent", disabled: true, write_scopes: [], tokens: 0 }]);
  });

  it("importing the same folder again adds nothing", async () => {
    const before = await rowCounts(tdb.db);
    const again = await runCli(["import", FOLDER, "--json"], env());
    expect(again.code, again.stderr).toBe(0);
    expect(onlyJson<Report>(again)).toMatchObject({ facts: { created: 0, updated: 0, unchanged: 4, invalid: 0 }, confirmedByImporter: 0 });
    expect(await rowCounts(tdb.db)).toEqual({ ...before, imports: before.imports + 1 });
    expect((await tdb.db.query("select 1 from agents where name = 'importer'")).rows).toHaveLength(1);
  });

  it("--as still decides who confirms", async () => {
    const run = await runCli(["import", FOLDER, "--as", "reviewer", "--json"], { DATABASE_URL: other.url! });
    expect(run.code, run.stderr).toBe(0);
    const report = onlyJson<Report>(run);
    expect(report).toMatchObject({ facts: { created: 4, invalid: 0 }, confirmedByImporter: 0 });
    expect(await getFact(other.db, team.reviewer, { name: "cache-ttl" })).toMatchObject({ statusBy: "reviewer", statusReason: "imported from project_cache-ttl.md (status: confirmed in the file)" });
    expect((await other.db.query("select 1 from agents where name = 'importer'")).rows).toHaveLength(0);
  });

  it("the importer can never sign in: the name is refused for agent add, token issue, enable and scopes; the database refuses a token too", async () => {
    const add = await runCli(["agent", "add", "importer", "--json"], env());
    expect(add.code).not.toBe(0);
    // --json: the error once, as JSON on stdout.
    expect((JSON.parse(add.stdout) as { error: { message: string } }).error.message).toContain('"importer" is a reserved agent name');
    for (const args of [["token", "issue", "importer"], ["agent", "enable", "importer"], ["agent", "scopes", "importer", "--scopes", "shared"]]) {
      const r = await runCli(args, env());
      expect(r.code, args.join(" ")).not.toBe(0);
      expect(r.stderr + r.stdout, args.join(" ")).toContain('"importer" is a reserved agent name');
    }
    await expect(
      tdb.db.query(`insert into agent_tokens (agent_id, token_hash, hint) select id, repeat('a', 64), 'x' from agents where name = 'importer'`),
    ).rejects.toThrow(/never gets a token/);
    await expect(tdb.db.query(`update agents set disabled_at = null where name = 'importer'`)).rejects.toThrow(/stays disabled/);
    expect((await tdb.db.query("select count(*)::int as n from agent_tokens t join agents a on a.id = t.agent_id where a.name = 'importer'")).rows).toEqual([{ n: 0 }]);
  });

  it("agent list shows it as reserved, in columns as wide as the others', and says what it is", async () => {
    const list = await runCli(["agent", "list"], env());
    expect(list.code).toBe(0);
    const [header, ...rest] = list.stdout.trimEnd().split("\n");
    const rows = rest.slice(0, rest.indexOf(""));
    expect(rows.find((r) => r.startsWith("importer "))).toMatch(/^importer +agent +- +- +0 +reserved +\d{4}-/);
    // Every row's CREATED column starts where the header's does.
    for (const row of rows) expect(row.indexOf("20")).toBe(header!.indexOf("CREATED"));
    expect(list.stdout).toContain('"importer" is reserved: it stands for history an import brought in');
  });
});
