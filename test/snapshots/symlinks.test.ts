// An export writes only inside its target: a symbolic link planted in the
// target (a scope folder, a fact file, ledger.jsonl) pointing elsewhere is
// refused, and nothing lands outside.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DomainError } from "../../src/errors.js";
import { exportSnapshot } from "../../src/snapshots/export.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addCaller, fact, store } from "../facts/helpers.js";

let tdb: TestDatabase;
let base: string;
let target: string;
let outside: string;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  const writer = await addCaller(tdb.db, "blog-writer", { scopes: ["shared", "blog"] });
  await store(tdb.db, writer, fact("tone-of-voice", { scope: "blog", body: "An agent wrote this body." }));
});
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "am-export-links-"));
  target = join(base, "snapshot");
  outside = join(base, "elsewhere");
  mkdirSync(target);
  mkdirSync(outside);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

const exportTo = (dir: string) => exportSnapshot(tdb.db, { dir, scopes: [], statuses: [] });

describe("export and symbolic links", () => {
  it("refuses a symlinked scope folder pointing outside the target; nothing is written there", async () => {
    symlinkSync(outside, join(target, "blog"), "dir");
    const e = await refusal(exportTo(target));
    expect(e.code).toBe("invalid");
    expect(e.message).toMatch(/^export: blog in .* is a symbolic link; an export writes only real files and folders inside its target\. Remove the link/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses a symlinked fact file and a symlinked ledger.jsonl; their targets are untouched", async () => {
    await exportTo(target);
    const victim = join(outside, "victim.txt");
    writeFileSync(victim, "keep me");
    const factFile = readdirSync(join(target, "blog"))[0]!;
    rmSync(join(target, "blog", factFile));
    symlinkSync(victim, join(target, "blog", factFile));
    expect((await refusal(exportTo(target))).message).toMatch(new RegExp(`^export: blog/${factFile} in .* is a symbolic link`));
    rmSync(join(target, "blog", factFile));
    rmSync(join(target, "ledger.jsonl"));
    symlinkSync(victim, join(target, "ledger.jsonl"));
    expect((await refusal(exportTo(target))).message).toMatch(/^export: ledger\.jsonl in .* is a symbolic link/);
    expect(readFileSync(victim, "utf8")).toBe("keep me");
  });

  it("a target folder that is itself a link is the operator's choice and is followed once", async () => {
    symlinkSync(outside, join(base, "via-link"), "dir");
    const report = await exportTo(join(base, "via-link"));
    expect(report.dir).toBe(outside);
    expect(existsSync(join(outside, "blog"))).toBe(true);
  });
});
