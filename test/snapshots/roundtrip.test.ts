// export → import → export on both backends: byte-identical trees, the same
// rows, determinism, idempotent imports, dry runs, filters and stale files.
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { verifyLedger } from "../../src/ledger/audit.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { fact, store } from "../facts/helpers.js";
import { addTeam, exportTo, importFrom, populate, readTree, rowCounts, teamOf, type Team } from "./helpers.js";

const CLAIMS = `select action, target, holder, claimed_at, expires_at from ledger_claims order by action, target`;

describe.each(BACKENDS)("snapshot round trip on %s", (backend) => {
  let source: TestDatabase;
  let target: TestDatabase;
  let team: Team;
  let targetTeam: Team;
  let work: string;
  const dir = (name: string) => join(work, name);

  beforeAll(async () => {
    [source, target] = await Promise.all([createTestDatabase(backend), createTestDatabase(backend)]);
    team = await addTeam(source.db);
    await populate(source.db, team);
    work = await mkdtemp(join(tmpdir(), "am-snapshots-"));
  });
  afterAll(async () => {
    await Promise.all([source?.drop(), target?.drop()]);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("export → import into an empty database (agents included) → export again gives byte-identical trees", async () => {
    const first = await exportTo(source.db, dir("a"));
    expect(first.facts).toEqual({ exported: 5, written: 5, unchanged: 0, removed: 0 });
    expect(first.ledger).toMatchObject({ rows: 7, lastSeq: 7 });
    expect(first.team).toEqual({ agents: 3, ledgerActions: 0 });

    const report = await importFrom(target.db, dir("a"));
    expect(report.team.agents).toEqual({ file: "agents.jsonl", created: ["blog-writer", "reviewer", "deployer"], existing: 0, invalid: [] });
    expect(report.facts).toEqual({ created: 5, updated: 0, unchanged: 0, invalid: 0 });
    expect(report.ledger).toEqual({ file: "ledger.jsonl", appended: 7, unchanged: 0, invalid: [] });
    expect(report.warnings).toEqual([]);
    expect(report.recorded).toMatchObject({ id: 1 });
    targetTeam = await teamOf(target.db);

    await exportTo(target.db, dir("b"));
    const [a, b] = [await readTree(dir("a")), await readTree(dir("b"))];
    expect(Object.keys(a).sort()).toEqual([
      "agents.jsonl",
      "blog/feedback_qiita-tag-limit.md",
      "blog/reference_old-ledger-path.md",
      "ledger-actions.jsonl",
      "ledger.jsonl",
      "shared/project_deploy-on-fridays.md",
      "shared/project_tricky-body.md",
      "shared/reference_deploy-needs-migrations.md",
    ]);
    expect(b).toEqual(a);

    // The database, not just the files: the fact as memory_get shows it, the live claim, an intact chain.
    const before = await getFact(source.db, team.reviewer, { name: "deploy-needs-migrations" });
    const after = await getFact(target.db, targetTeam.reviewer, { name: "deploy-needs-migrations" });
    const ms = (t: string) => new Date(t).toISOString().replace(/\.\d{3}Z$/, "");
    expect({ ...after, createdAt: ms(after.createdAt) }).toMatchObject({ version: 3, status: "confirmed", statusBy: "blog-writer", author: "reviewer" });
    expect(after.versions.map((v) => [v.version, v.author, v.type, v.body])).toEqual(before.versions.map((v) => [v.version, v.author, v.type, v.body]));
    expect(after.events.map((e) => [e.kind, e.version, e.actor, e.from, e.to, e.reason])).toEqual(before.events.map((e) => [e.kind, e.version, e.actor, e.from, e.to, e.reason]));
    expect((await target.db.query(CLAIMS)).rows).toEqual((await source.db.query(CLAIMS)).rows);
    expect(await verifyLedger(target.db)).toMatchObject({ ok: true, rows: 7 });
  });

  it("from a tree without agents.jsonl into a database without the team, names every agent to create: each file's at once, and all of them in the report", async () => {
    await exportTo(source.db, dir("for-empty"));
    await rm(join(dir("for-empty"), "agents.jsonl"));
    const empty = await createTestDatabase(backend);
    try {
      const report = await importFrom(empty.db, dir("for-empty"), { dryRun: true });
      expect(report.facts.invalid).toBe(5);
      const deploy = report.files.find((f) => f.file === "shared/reference_deploy-needs-migrations.md")!;
      expect(deploy.reason).toMatch(/^3 names are not agents here: "deployer" \(History entry 1: by\), "reviewer" \(History entry 3: by\), "blog-writer" \(History entry 4: by\)\. Create them \(/);
      expect(deploy.reason).toContain("agent-memory agent add reviewer --no-token");
      expect(deploy.reason).toContain("agent-memory agent add blog-writer --no-token");
      const missing = new Map(report.missingAgents.map((m) => [m.name, m.files]));
      expect(missing.get("reviewer")).toBeGreaterThanOrEqual(2);
      expect(missing.get("blog-writer")).toBeGreaterThanOrEqual(1);
      expect([...missing.values()].every((n) => n >= 1)).toBe(true);
    } finally {
      await empty.drop();
    }
  });

  it("writes a readable file: front matter, body, history with reasons, earlier versions", async () => {
    const text = await readFile(join(dir("a"), "shared/reference_deploy-needs-migrations.md"), "utf8");
    expect(text).toMatch(/^---\nname: deploy-needs-migrations\ndescription: 本番デプロイの前に migrate を実行する\ntype: reference\nstatus: confirmed\nscope: shared\nauthor: reviewer\nversion: 3\ncreated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\nupdated: .*Z\n---\n\n理由: 古いスキーマでは起動しない。\n適用: `agent-memory migrate` を CI で。\n\n<!-- agent-memory:history -->\n## History\n/);
    expect(text).toMatch(/  event: confirmed\n  by: blog-writer\n  at: .*\n  from: draft\n  to: confirmed\n  reason: CI の手順と一致することを確認した\n```\n\n<!-- agent-memory:earlier-versions -->\n## Earlier versions\n/);
    expect(text.endsWith("```\n") && !text.endsWith("\n\n")).toBe(true);
    const deprecated = await readFile(join(dir("a"), "shared/project_deploy-on-fridays.md"), "utf8");
    expect(deprecated).toContain("  reason: |-\n    Friday deploy broke the weekend twice.\n    Second line of the reason.\n");
  });

  it("exporting twice without changes is byte-identical and leaves the fact files untouched", async () => {
    const file = join(dir("a"), "blog/feedback_qiita-tag-limit.md");
    const mtime = (await stat(file)).mtimeMs;
    const again = await exportTo(source.db, dir("a"));
    expect(again.facts).toEqual({ exported: 5, written: 0, unchanged: 5, removed: 0 });
    expect(await readTree(dir("a"))).toEqual(await readTree(dir("b")));
    expect((await stat(file)).mtimeMs).toBe(mtime);
  });

  it("importing again changes nothing: all unchanged, no new rows except the record of the import", async () => {
    const before = await rowCounts(target.db);
    const again = await importFrom(target.db, dir("a"));
    expect(again.facts).toEqual({ created: 0, updated: 0, unchanged: 5, invalid: 0 });
    expect(again.ledger).toMatchObject({ appended: 0, unchanged: 7, invalid: [] });
    expect(await rowCounts(target.db)).toEqual({ ...before, imports: before.imports + 1 });
    // Into the database it came from (whose times have microseconds) it is a no-op as well.
    const home = await importFrom(source.db, dir("a"));
    expect(home.facts).toEqual({ created: 0, updated: 0, unchanged: 5, invalid: 0 });
    expect(home.ledger).toMatchObject({ appended: 0, unchanged: 7 });
  });

  it("--dry-run reports what would happen and writes nothing", async () => {
    const fresh = await createTestDatabase(backend);
    try {
      await addTeam(fresh.db);
      const before = await rowCounts(fresh.db);
      const dry = await importFrom(fresh.db, dir("a"), { dryRun: true });
      expect(dry.facts).toEqual({ created: 5, updated: 0, unchanged: 0, invalid: 0 });
      expect(dry.ledger).toMatchObject({ appended: 7, unchanged: 0, invalid: [] });
      expect(dry.recorded).toBeNull();
      expect(await rowCounts(fresh.db)).toEqual(before);
      const head = await fresh.db.query<{ last_seq: number }>("select last_seq from ledger_chain_head");
      expect(Number(head.rows[0]!.last_seq)).toBe(0);
    } finally {
      await fresh.drop();
    }
  });

  it("a newer export updates an older import by appending the missing history (a new type renames the file)", async () => {
    const v = (await getFact(source.db, team.writer, { name: "tricky-body" })).version;
    await store(source.db, team.writer, fact("tricky-body", { version: v, type: "feedback", body: "a second version" }));
    await promoteFact(source.db, team.reviewer, { name: "tricky-body", to: "confirmed", reason: "looked fine" });
    const second = await exportTo(source.db, dir("a"));
    expect(second.facts).toEqual({ exported: 5, written: 1, unchanged: 4, removed: 1 });
    expect(second.removedFiles).toEqual(["shared/project_tricky-body.md"]);
    const report = await importFrom(target.db, dir("a"));
    expect(report.facts).toEqual({ created: 0, updated: 1, unchanged: 4, invalid: 0 });
    expect(report.files.find((f) => f.outcome === "updated")).toMatchObject({ file: "shared/feedback_tricky-body.md", scope: "shared", name: "tricky-body" });
    await exportTo(target.db, dir("b"));
    expect(await readTree(dir("b"))).toEqual(await readTree(dir("a")));
  });

  it("warns when an exported ledger has lines missing, and still imports the rest", async () => {
    const copy = dir("gap");
    await mkdir(copy, { recursive: true });
    const lines = (await readFile(join(dir("a"), "ledger.jsonl"), "utf8")).split("\n");
    await writeFile(join(copy, "ledger.jsonl"), [...lines.slice(0, 2), ...lines.slice(3)].join("\n"));
    const report = await importFrom(target.db, copy);
    expect(report.ledger).toMatchObject({ appended: 0, unchanged: 6, invalid: [] });
    expect(report.warnings).toEqual([
      "ledger.jsonl line 3 (#4) does not link to the line before it (#2): records of the exported chain are missing from the file.",
    ]);
  });

  it("refuses a file whose history contradicts the database, and imports the rest", async () => {
    // Both databases give the deprecated fact a new version 2, each its own.
    await store(source.db, team.writer, fact("old-ledger-path", { scope: "blog", type: "reference", version: 1, body: "v2 in the source" }));
    await store(target.db, targetTeam.writer, fact("old-ledger-path", { scope: "blog", type: "reference", version: 1, body: "v2 in the target" }));
    await exportTo(source.db, dir("a"));
    const before = await rowCounts(target.db);
    const report = await importFrom(target.db, dir("a"));
    expect(report.facts).toEqual({ created: 0, updated: 0, unchanged: 4, invalid: 1 });
    expect(report.files.find((f) => f.outcome === "invalid")).toEqual({
      file: "blog/reference_old-ledger-path.md",
      outcome: "invalid",
      reason: expect.stringMatching(
        /^the database's history of "old-ledger-path" \(scope blog\) differs from the file's: history entry 3 is "updated of version 2 by blog-writer at .*Z" in the database and "updated of version 2 by blog-writer at .*Z" in the file\. Nothing was imported from this file/,
      ),
    });
    expect(await rowCounts(target.db)).toEqual({ ...before, imports: before.imports + 1 });
    expect((await getFact(target.db, targetTeam.writer, { name: "old-ledger-path" })).body).toBe("v2 in the target");
  });

  it("filters by scope and status, and removes files that no longer match, touching nothing else", async () => {
    const out = dir("filtered");
    await mkdir(join(out, ".git"), { recursive: true });
    await writeFile(join(out, ".git", "HEAD"), "ref: refs/heads/main\n");
    await writeFile(join(out, "README.md"), "# Team memory\n");
    await mkdir(join(out, "blog"), { recursive: true });
    await writeFile(join(out, "blog", "notes.md"), "my own notes\n");
    await writeFile(join(out, "blog", "project_hand-written.md"), "---\nname: hand-written\n---\nnot an export\n");

    const all = await exportTo(source.db, out);
    expect(all.facts.exported).toBe(5);
    const blog = await exportTo(source.db, out, { scopes: ["blog"] });
    expect(blog.facts).toMatchObject({ exported: 2, removed: 3 });
    expect(blog.removedFiles).toEqual(["shared/feedback_tricky-body.md", "shared/project_deploy-on-fridays.md", "shared/reference_deploy-needs-migrations.md"]);
    const confirmed = await exportTo(source.db, out, { scopes: ["blog", "shared"], statuses: ["confirmed"] });
    expect(confirmed.facts).toMatchObject({ exported: 3, written: 2, removed: 1 });
    expect(Object.keys(await readTree(out)).sort()).toEqual([
      ".git/HEAD",
      "README.md",
      "agents.jsonl",
      "blog/feedback_qiita-tag-limit.md",
      "blog/notes.md",
      "blog/project_hand-written.md",
      "ledger-actions.jsonl",
      "ledger.jsonl",
      "shared/feedback_tricky-body.md",
      "shared/reference_deploy-needs-migrations.md",
    ]);
    await expect(exportTo(source.db, out, { statuses: ["published"] })).rejects.toThrow(/--status "published" is not valid/);
    await expect(exportTo(source.db, out, { scopes: ["Blog"] })).rejects.toThrow(/scope "Blog" is not valid/);
  });
});
