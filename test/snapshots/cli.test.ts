// `agent-memory export` and `import` as an operator runs them: the built CLI in
// a child process, on the embedded database and on Postgres, and across the two.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PATH, onlyJson, runCli } from "../support/cli.js";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { createTestDatabase, seedEmbeddedDataDir, TEST_TIMEOUTS, type TestDatabase } from "../support/databases.js";
import { addTeam, populate, readTree } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

describe("agent-memory export / import", () => {
  let work: string;
  let pg: TestDatabase;
  let pgCopy: TestDatabase;
  let pgFromEmbedded: TestDatabase;
  const path = (name: string) => join(work, name);
  const embedded = (name: string) => ({ AGENT_MEMORY_DATA_DIR: path(name) });

  /**
   * An embedded data folder with the same three agents as addTeam, in the same
   * order (so ids and ledger hashes match). Made once in-process and copied
   * (the database is closed): creating a PGlite folder costs seconds, and
   * starting the CLI to add agents would only test `agent add` again.
   */
  async function embeddedWithTeam(name: string): Promise<Record<string, string>> {
    const template = path("data-template");
    if (!existsSync(template)) {
      await seedEmbeddedDataDir(template);
      const db = await openPglite({ ...TEST_TIMEOUTS, dataDir: template });
      try {
        await addTeam(db);
      } finally {
        await db.close();
      }
    }
    await cp(template, path(name), { recursive: true });
    return embedded(name);
  }

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does).`);
    work = await mkdtemp(join(tmpdir(), "am-snapshots-cli-"));
    [pg, pgCopy, pgFromEmbedded] = await Promise.all([createTestDatabase("postgres"), createTestDatabase("postgres"), createTestDatabase("postgres")]);
    await populate(pg.db, await addTeam(pg.db));
    // pgCopy and pgFromEmbedded get their agents from the tree (agents.jsonl).
  });
  afterAll(async () => {
    await Promise.all([pg?.drop(), pgCopy?.drop(), pgFromEmbedded?.drop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("on the embedded database: import a seeds folder, export, import into a second data folder, export again: identical", async () => {
    const a = await embeddedWithTeam("data-a");
    const imported = await runCli(["import", join(FIXTURES, "seeds")], a);
    expect(imported.code, imported.stderr).toBe(0);
    // No progress line: stderr is not a terminal here.
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toMatch(
      /^Imported .*fixtures\/seeds\.\nfacts:  3 created, 0 updated, 0 unchanged, 0 invalid\nledger: 3 appended, 0 unchanged, 0 invalid\n  created   feedback_qiita-tag-limit\.md\n  created   project_deploy-needs-migrations\.md\n  created   reference_old-ledger-path\.md\nRecorded as import #1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\.\n$/,
    );

    const first = await runCli(["export", path("tree-a"), "--json"], a);
    expect(first.code, first.stderr).toBe(0);
    expect(onlyJson(first)).toMatchObject({ facts: { exported: 3, written: 3, unchanged: 0, removed: 0 }, ledger: { rows: 3, lastSeq: 3 } });
    const twice = await runCli(["export", path("tree-a")], a);
    expect(twice.stdout).toMatch(
      /^Exported 3 fact\(s\) to .*tree-a \(0 written, 3 unchanged, 0 removed\) and 3 ledger event\(s\) to .*tree-a\/ledger\.jsonl\.\n  team     agents\.jsonl: 3 agents \(never tokens\); ledger-actions\.jsonl: 0 action mappings\n$/,
    );

    const b = await embeddedWithTeam("data-b");
    const dry = await runCli(["import", path("tree-a"), "--dry-run", "--json"], b);
    expect(dry.code, dry.stderr).toBe(0);
    expect(onlyJson(dry)).toMatchObject({ dryRun: true, facts: { created: 3 }, ledger: { appended: 3 }, recorded: null });
    // The dry run wrote nothing: the real import still creates everything and is the first recorded one.
    const into = onlyJson(await runCli(["import", path("tree-a"), "--json"], b));
    expect(into).toMatchObject({ facts: { created: 3, updated: 0, unchanged: 0, invalid: 0 }, ledger: { appended: 3 }, recorded: { id: 1 } });
    expect((await runCli(["export", path("tree-b")], b)).code).toBe(0);
    expect(await readTree(path("tree-b"))).toEqual(await readTree(path("tree-a")));

    // And from the embedded database into Postgres.
    expect((await runCli(["import", path("tree-a")], { DATABASE_URL: pgFromEmbedded.url! })).code).toBe(0);
    expect((await runCli(["export", path("tree-pg")], { DATABASE_URL: pgFromEmbedded.url! })).code).toBe(0);
    expect(await readTree(path("tree-pg"))).toEqual(await readTree(path("tree-a")));
  }, 240_000);

  it("on Postgres: export, import into an empty database, export again: byte-identical", async () => {
    const exported = await runCli(["export", path("pg-a"), "--json"], { DATABASE_URL: pg.url! });
    expect(exported.code, exported.stderr).toBe(0);
    expect(onlyJson(exported)).toMatchObject({ facts: { exported: 5 }, ledger: { rows: 7 } });

    const copy = await runCli(["import", path("pg-a"), "--json"], { DATABASE_URL: pgCopy.url! });
    expect(onlyJson(copy)).toMatchObject({ facts: { created: 5, invalid: 0 }, ledger: { appended: 7 } });
    expect((await runCli(["export", path("pg-b")], { DATABASE_URL: pgCopy.url! })).code).toBe(0);

    const a = await readTree(path("pg-a"));
    expect(Object.keys(a)).toHaveLength(8);
    expect(await readTree(path("pg-b"))).toEqual(a);
  });

  it("shows progress on stderr only when it is a terminal", async () => {
    // `script` runs the command on a pseudo-terminal (stdout and stderr both go to it).
    const command = `${process.execPath} ${CLI_PATH} export ${path("tty")}`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile("script", ["-qec", command, "/dev/null"], { env: { PATH: process.env.PATH, LOG_LEVEL: "warn", DATABASE_URL: pg.url! } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(out).toMatch(/\rexporting facts 5\/5\x1b\[K\r\nExported 5 fact\(s\) to /);
  });

  it("exits 1 with the report when files were invalid, 2 on bad arguments", async () => {
    const r = await runCli(["import", join(FIXTURES, "seeds-invalid"), "--json"], { DATABASE_URL: pgCopy.url! });
    expect(r.code).toBe(1);
    const report = onlyJson<{ facts: Record<string, number>; files: Array<{ file: string; outcome: string; reason?: string }>; missingAgents: unknown }>(r);
    expect(report.facts).toEqual({ created: 1, updated: 0, unchanged: 0, invalid: 5 });
    expect(report.missingAgents).toEqual([{ name: "cron-bot", files: 1 }]);
    expect(report.files.find((f) => f.file === "project_long-description.md")).toMatchObject({ outcome: "invalid", reason: expect.stringMatching(/^description is 201 characters/) });

    const text = await runCli(["import", join(FIXTURES, "seeds-invalid"), "--dry-run"], { DATABASE_URL: pgCopy.url! });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("Dry run of the import from");
    expect(text.stdout).toContain("  invalid   notes_unknown-type.md: type \"notes\" is not valid");
    // Every agent to create, once, after the files (a migrating team ran the import once per missing name).
    expect(text.stdout).toContain(
      "Not agents here: cron-bot (1 file). Create them with the kind and scopes they have where the files come from (add --kind human --scopes … for a person) " +
        "and import again, or pass --as <agent> to import their work under one agent:\n  agent-memory agent add cron-bot --no-token",
    );

    const usage = await runCli(["export", path("x"), "--status", "published", "--json"], { DATABASE_URL: pgCopy.url! });
    expect(usage.code).toBe(2);
    expect(onlyJson(usage)).toEqual({ error: { code: "invalid", message: expect.stringMatching(/--status "published" is not valid/) } });
    const as = await runCli(["import", path("pg-a"), "--as", "ghost", "--json"], { DATABASE_URL: pgCopy.url! });
    expect(as.code).toBe(2);
    expect(onlyJson(as)).toEqual({ error: { code: "invalid", message: expect.stringMatching(/^--as ghost: no such agent/) } });
    const missing = await runCli(["import", path("no-such-folder")], { DATABASE_URL: pgCopy.url! });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-folder is not a folder/);
  });
});
