// What `agent-memory graph import FILE` agrees to read, run as an operator runs
// it (the built CLI in a child process): a regular file of bounded size, in lines
// of bounded length. The child runs with a small heap, so reading a device or a
// huge line whole fails the test at once instead of filling memory.
import { closeSync, mkdtempSync, openSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { IMPORT_FILES } from "../../src/limits.js";
import { onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

let tdb: TestDatabase;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  await createAgent(tdb.db, { name: "owner", kind: "human", writeScopes: ["*"] });
  dir = mkdtempSync(join(tmpdir(), "am-graph-files-"));
  env = { DATABASE_URL: tdb.url!, NODE_OPTIONS: "--max-old-space-size=128" };
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const entity = (name: string) => JSON.stringify({ type: "entity", name, entityType: "thing", observations: [`about ${name}`] });
const error = (r: Awaited<ReturnType<typeof runCli>>) => onlyJson<{ error: { code: string; message: string } }>(r).error;

describe("graph import reads only regular files of bounded size", () => {
  it("refuses a device (/dev/zero) and a symbolic link, naming the path, before reading", async () => {
    const device = await runCli(["graph", "import", "/dev/zero", "--json"], env);
    expect(device.code, device.stderr).toBe(2);
    expect(error(device)).toEqual({ code: "invalid", message: expect.stringMatching(/^\/dev\/zero is not a regular file \(it is a character device\); an import reads only regular files/) });

    const target = join(dir, "real.jsonl");
    writeFileSync(target, entity("linked"));
    const link = join(dir, "link.jsonl");
    symlinkSync(target, link);
    const linked = await runCli(["graph", "import", link, "--json"], env);
    expect(linked.code, linked.stderr).toBe(2);
    expect(error(linked).message).toMatch(new RegExp(`^${link} is a symbolic link; an import reads only regular files`));
    expect((await tdb.db.query("select 1 from graph_entities where name = 'linked'")).rowCount).toBe(0);
  });

  it("refuses a file larger than its limit before reading it, naming the path and the limit", async () => {
    const huge = join(dir, "huge.jsonl");
    writeFileSync(huge, "");
    truncateSync(huge, IMPORT_FILES.graph.maxBytes + 1);
    const r = await runCli(["graph", "import", huge, "--json"], env);
    expect(r.code, r.stderr).toBe(2);
    expect(error(r).message).toBe(
      `${huge} is 17,179,869,185 bytes; an import reads at most 16 GiB (17,179,869,184 bytes) from a graph file. ` +
        "Split it into smaller files (e.g. split -l 1000000) and import each: lines of one entity merge.",
    );
  });

  it("skips a line longer than its limit without holding it, lists it by number with the limit, and imports the others", async () => {
    const file = join(dir, "long-line.jsonl");
    // Line 2 is zero bytes past the limit: a hole in a sparse file, so the test writes almost nothing to disk.
    const first = `${entity("before")}\n`;
    const fd = openSync(file, "w");
    writeSync(fd, first);
    writeSync(fd, `\n${entity("after")}`, first.length + IMPORT_FILES.graph.maxLineBytes + 1);
    closeSync(fd);
    const r = await runCli(["graph", "import", file, "--json"], env);
    expect(r.code, r.stderr).toBe(1);
    const report = onlyJson<{ lines: number; entities: { created: number }; invalid: Array<{ line: number; error: string }> }>(r);
    expect(report.lines).toBe(3);
    expect(report.entities.created).toBe(2);
    expect(report.invalid).toEqual([{ line: 2, error: expect.stringMatching(/^longer than 64 MiB \(67,108,864 bytes\), the limit of a graph file line/) }]);
  });
});
