// What `agent-memory import` agrees to read, run as an operator runs it (the
// built CLI in a child process): only regular files, of bounded size, in lines of
// bounded length. A ledger.jsonl linked to /dev/zero ended in a heap
// out-of-memory crash (security audit); the child runs with a small heap, so
// reading such a file whole fails the test at once instead of filling memory.
import { cpSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IMPORT_FILES } from "../../src/limits.js";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addTeam } from "./helpers.js";

const SEEDS = fileURLToPath(new URL("./fixtures/seeds/", import.meta.url));
const SMALL_HEAP = { NODE_OPTIONS: "--max-old-space-size=128" };

let tdb: TestDatabase;
let base: string;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  await addTeam(tdb.db);
  env = { DATABASE_URL: tdb.url!, ...SMALL_HEAP };
});
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "am-import-files-"));
  dir = join(base, "tree");
  cpSync(SEEDS, dir, { recursive: true });
  rmSync(join(dir, "ledger.jsonl"));
  return () => rmSync(base, { recursive: true, force: true });
});

const factCount = async () => (await tdb.db.query<{ n: number }>("select count(*)::int as n from facts")).rows[0]!.n;
const importDir = (...args: string[]) => runCli(["import", dir, ...args], env);

describe("import reads only regular files of bounded size", () => {
  it("refuses a ledger.jsonl that is a symbolic link (to /dev/zero), naming it, before reading or importing anything", async () => {
    symlinkSync("/dev/zero", join(dir, "ledger.jsonl"));
    const r = await importDir("--json");
    expect(r.code, r.stderr).toBe(2);
    const { error } = onlyJson<{ error: { code: string; message: string } }>(r);
    expect(error.code).toBe("invalid");
    expect(error.message).toContain(join(dir, "ledger.jsonl"));
    expect(error.message).toMatch(/is a symbolic link; an import reads only regular files.*Replace the link with a copy of the file/);
    expect(await factCount()).toBe(0);
  });

  it("refuses a ledger.jsonl larger than its limit before reading it, naming the path and the limit", async () => {
    // Sparse: no disk is used, and reading it would be 16 GiB of zero bytes in one line.
    writeFileSync(join(dir, "ledger.jsonl"), "");
    truncateSync(join(dir, "ledger.jsonl"), IMPORT_FILES.ledger.maxBytes + 1);
    const r = await importDir();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(join(dir, "ledger.jsonl"));
    expect(r.stderr).toMatch(/is 17,179,869,185 bytes; an import reads at most 16 GiB \(17,179,869,184 bytes\) from a ledger\.jsonl/);
    expect(await factCount()).toBe(0);
  });

  it("reports a ledger line longer than its limit by number, with the limit, and imports nothing of the ledger", async () => {
    const good = '{"action":"deploy_prod","target":"v9","evidence":"https://example.com/run/1","actor":"deployer","at":"2025-03-03T18:00:00.000Z"}';
    const long = `{"action":"deploy_prod","target":"v10","evidence":"https://example.com/run/2","actor":"deployer","at":"2025-03-03T19:00:00.000Z","note":"${"n".repeat(IMPORT_FILES.ledger.maxLineBytes)}"}`;
    writeFileSync(join(dir, "ledger.jsonl"), `${good}\n${long}\n${good.replace("v9", "v11")}\n`);
    const r = await importDir("--dry-run", "--json");
    expect(r.code, r.stderr).toBe(1);
    const report = onlyJson<{ ledger: { appended: number; invalid: Array<{ line: number; reason: string }> } }>(r);
    expect(report.ledger.appended).toBe(0);
    expect(report.ledger.invalid).toEqual([{ line: 2, reason: expect.stringMatching(/^longer than 1 MiB \(1,048,576 bytes\), the limit of a ledger\.jsonl line/) }]);
  });

  it("reports a fact file that is a symbolic link, or larger than its limit, as invalid with the reason; the other files import", async () => {
    const outside = join(base, "outside.md");
    cpSync(join(dir, "reference_old-ledger-path.md"), outside);
    rmSync(join(dir, "reference_old-ledger-path.md"));
    symlinkSync(outside, join(dir, "reference_old-ledger-path.md"));
    writeFileSync(join(dir, "project_huge.md"), "");
    truncateSync(join(dir, "project_huge.md"), IMPORT_FILES.factFile.maxBytes + 1);
    const r = await importDir("--dry-run", "--json");
    expect(r.code, r.stderr).toBe(1);
    const report = onlyJson<{ facts: Record<string, number>; files: Array<{ file: string; outcome: string; reason?: string }> }>(r);
    expect(report.facts).toMatchObject({ created: 2, invalid: 2 });
    expect(report.files.find((f) => f.file === "reference_old-ledger-path.md")).toMatchObject({
      outcome: "invalid",
      reason: expect.stringMatching(/reference_old-ledger-path\.md is a symbolic link; an import reads only regular files/),
    });
    expect(report.files.find((f) => f.file === "project_huge.md")).toMatchObject({
      outcome: "invalid",
      reason: expect.stringMatching(/project_huge\.md is 67,108,865 bytes; an import reads at most 64 MiB \(67,108,864 bytes\) from a fact file/),
    });
  });
});
