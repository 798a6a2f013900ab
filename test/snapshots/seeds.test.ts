// Importing a hand-written folder in the seeds' file-based format, invalid
// files reported and skipped, --as, and the ledger's own import rules.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { verifyLedger } from "../../src/ledger/audit.js";
import { eventHash, GENESIS_HASH } from "../../src/ledger/event.js";
import { claimLedger } from "../../src/ledger/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { actor, addTeam, exportTo, importFrom, readTree, rowCounts, type Team } from "./helpers.js";
import { fact, store } from "../facts/helpers.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const LEDGER_ROWS = `select e.seq, e.kind, e.action, e.target, e.actor, a.name as agent, e.at, e.evidence from ledger_events e join agents a on a.id = e.actor_id order by e.seq`;

describe.each(BACKENDS)("importing a file-based memory folder on %s", (backend) => {
  let tdb: TestDatabase;
  let team: Team;
  let work: string;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    team = await addTeam(tdb.db);
    work = await mkdtemp(join(tmpdir(), "am-seeds-"));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("imports the facts with their status, author, time and reasons, and the ledger with its actors and times", async () => {
    const report = await importFrom(tdb.db, join(FIXTURES, "seeds"));
    expect(report.facts).toEqual({ created: 3, updated: 0, unchanged: 0, invalid: 0 });
    expect(report.files.map((f) => [f.file, f.outcome, f.scope])).toEqual([
      ["feedback_qiita-tag-limit.md", "created", "blog"],
      ["project_deploy-needs-migrations.md", "created", "shared"],
      ["reference_old-ledger-path.md", "created", "shared"],
    ]);
    expect(report.ledger).toEqual({ file: "ledger.jsonl", appended: 3, unchanged: 0, invalid: [] });

    const confirmed = await getFact(tdb.db, team.reviewer, { name: "deploy-needs-migrations" });
    expect(confirmed).toMatchObject({
      description: "本番デプロイの前に必ずマイグレーションを流す",
      type: "project",
      status: "confirmed",
      author: "deployer",
      createdAt: "2025-03-01T00:00:00.000Z",
      statusBy: "reviewer",
      statusReason: "CI のログで手順を確認した",
    });
    // The "> [confirmed] by …" line became the confirmation above; the body no longer repeats it.
    expect(confirmed.body).toMatch(/^古いスキーマのままだとアプリが起動しない。.*How to apply: CI のデプロイジョブの先頭に migrate を置く。$/s);

    const draft = await getFact(tdb.db, team.reviewer, { name: "qiita-tag-limit", scope: "blog" });
    expect(draft).toMatchObject({ status: "draft", author: "blog-writer", createdAt: "2025-03-02T10:20:30.456Z", description: "Qiita 태그는 5개까지만 붙일 수 있다" });

    const deprecated = await getFact(tdb.db, team.reviewer, { name: "old-ledger-path" });
    expect(deprecated).toMatchObject({ status: "deprecated", statusBy: "reviewer", statusReason: "台帳は Postgres に移った。このファイルはもう更新されない。" });
    expect(deprecated.events.map((e) => [e.kind, e.actor, e.from, e.to])).toEqual([
      ["created", "blog-writer", null, "draft"],
      ["deprecated", "reviewer", "draft", "deprecated"],
    ]);

    const rows = (await tdb.db.query<{ actor: string; at: Date; target: string; kind: string }>(LEDGER_ROWS)).rows;
    expect(rows.map((r) => [r.kind, r.target, r.actor, r.at.toISOString()])).toEqual([
      ["executed", "agent-memory-mcp-patterns", "blog-writer", "2025-03-02T09:15:00.000Z"],
      ["executed", "v1.2.0", "deployer", "2025-03-03T18:00:00.000Z"],
      ["executed", "記憶サーバーの設計パターン", "blog-writer", "2025-03-04T08:30:00.123Z"],
    ]);
    expect(await verifyLedger(tdb.db)).toMatchObject({ ok: true, rows: 3 });
  });

  it("imports the same folder again as unchanged, writing no rows but the import record", async () => {
    const before = await rowCounts(tdb.db);
    const again = await importFrom(tdb.db, join(FIXTURES, "seeds"));
    expect(again.facts).toEqual({ created: 0, updated: 0, unchanged: 3, invalid: 0 });
    expect(again.ledger).toMatchObject({ appended: 0, unchanged: 3, invalid: [] });
    expect(await rowCounts(tdb.db)).toEqual({ ...before, imports: before.imports + 1 });
  });

  it("round-trips what it imported: export, import into an empty database, export again", async () => {
    await exportTo(tdb.db, join(work, "first"));
    const fresh = await createTestDatabase(backend);
    try {
      // The agents come with the tree (agents.jsonl).
      expect((await importFrom(fresh.db, join(work, "first"))).facts).toMatchObject({ created: 3, invalid: 0 });
      await exportTo(fresh.db, join(work, "second"));
      expect(await readTree(join(work, "second"))).toEqual(await readTree(join(work, "first")));
    } finally {
      await fresh.drop();
    }
  });

  it("a changed seed file becomes a new version, and its new status a promotion", async () => {
    const dir = join(work, "edited");
    await cp(join(FIXTURES, "seeds"), dir, { recursive: true });
    const file = join(dir, "feedback_qiita-tag-limit.md");
    const text = await readFile(file, "utf8");
    await writeFile(file, `${text.replace("status: draft", "status: deprecated")}\n> [deprecated] by reviewer: 이제 태그 제한이 10개로 늘었다\n`);
    const report = await importFrom(tdb.db, dir);
    expect(report.facts).toEqual({ created: 0, updated: 1, unchanged: 2, invalid: 0 });
    const f = await getFact(tdb.db, team.reviewer, { name: "qiita-tag-limit", scope: "blog" });
    // The appended promotion line is a promotion, not a change of content.
    expect(f).toMatchObject({ version: 1, status: "deprecated", author: "blog-writer", statusBy: "reviewer", statusReason: "이제 태그 제한이 10개로 늘었다" });
    expect(f.body).not.toContain("> [deprecated]");
    expect(f.events.map((e) => [e.kind, e.version, e.from, e.to])).toEqual([
      ["created", 1, null, "draft"],
      ["deprecated", 1, "draft", "deprecated"],
    ]);
    // A body edit is a new version.
    await writeFile(file, (await readFile(file, "utf8")).replace("\n> [deprecated]", "Checked again in 2026.\n\n> [deprecated]"));
    expect((await importFrom(tdb.db, dir)).facts).toEqual({ created: 0, updated: 1, unchanged: 2, invalid: 0 });
    const edited = await getFact(tdb.db, team.reviewer, { name: "qiita-tag-limit", scope: "blog" });
    expect(edited.version).toBe(2);
    expect(edited.body).toMatch(/Checked again in 2026\.$/);
    expect((await importFrom(tdb.db, dir)).facts).toEqual({ created: 0, updated: 0, unchanged: 3, invalid: 0 });
  });

  it("a fact imported before promotion lines left the body is unchanged when its file is imported again", async () => {
    const dir = join(work, "legacy");
    await mkdir(dir, { recursive: true });
    const body = "Tags beyond five fail to publish.\n\n> [confirmed] by reviewer: checked the API docs";
    await writeFile(join(dir, "feedback_legacy-tags.md"), `---\nname: legacy-tags\ndescription: Five tags at most\ntype: feedback\nstatus: draft\nowner: blog-writer\n---\n\n${body}\n`);
    // As an earlier import stored it: the body with its promotion line.
    await store(tdb.db, team.writer, fact("legacy-tags", { description: "Five tags at most", type: "feedback", body }));
    expect((await importFrom(tdb.db, dir)).facts).toEqual({ created: 0, updated: 0, unchanged: 1, invalid: 0 });
    expect((await getFact(tdb.db, team.reviewer, { name: "legacy-tags" })).version).toBe(1);
  });

  it("reports invalid files with their reasons and imports the good ones", async () => {
    const before = await rowCounts(tdb.db);
    const report = await importFrom(tdb.db, join(FIXTURES, "seeds-invalid"));
    expect(report.facts).toEqual({ created: 1, updated: 0, unchanged: 0, invalid: 5 });
    const reasons = Object.fromEntries(report.files.map((f) => [f.file, f.reason ?? f.outcome]));
    expect(reasons).toEqual({
      "feedback_bad-yaml.md": expect.stringMatching(/^the front matter is not valid YAML \(line 2 of it\): .*Quote values that contain ": "/),
      "notes_unknown-type.md": expect.stringMatching(/^type "notes" is not valid: use feedback .*, project .* or reference/),
      "project_good-one.md": "created",
      "project_long-description.md": "description is 201 characters; the limit is 200. Shorten it to one line and move details into the body.",
      "project_self-confirmed.md": expect.stringMatching(/^status: confirmed needs a confirmer other than the author .*; "reviewer" is not another agent here\. Pass --as <reviewer>/),
      "project_unknown-owner.md": 'owner "cron-bot" is not an agent here: create it (agent-memory agent add cron-bot --no-token) or pass --as <agent> to import its work under that agent.',
    });
    expect(await rowCounts(tdb.db)).toMatchObject({ facts: before.facts + 1, versions: before.versions + 1, events: before.events + 1 });
    expect(report.missingAgents).toEqual([{ name: "cron-bot", files: 1 }]);
  });

  it("lists every agent the files name that is not here, with how many files name it", async () => {
    const dir = join(work, "missing-agents");
    await mkdir(dir, { recursive: true });
    const seed = (name: string, owner: string) => `---\nname: ${name}\ndescription: A rule of ${owner}\ntype: project\nstatus: draft\nowner: ${owner}\n---\n\nWhy: a test.\n`;
    await writeFile(join(dir, "project_a.md"), seed("rule-a", "cron-bot"));
    await writeFile(join(dir, "project_b.md"), seed("rule-b", "night-bot"));
    await writeFile(join(dir, "project_c.md"), seed("rule-c", "cron-bot"));
    // Names are listed even where the file fails another check first (a status, a ledger line's evidence).
    await writeFile(join(dir, "project_d.md"), seed("rule-d", "night-bot").replace("status: draft", "status: published"));
    await writeFile(join(dir, "ledger.jsonl"), `${JSON.stringify({ action: "deploy", target: "api", evidence: "not a link", actor: "ledger-bot", at: "2026-11-01T10:00:00Z" })}\n`);
    const before = await rowCounts(tdb.db);
    const report = await importFrom(tdb.db, dir, { dryRun: true });
    expect(report.facts.invalid).toBe(4);
    expect(report.files.find((f) => f.file === "project_d.md")?.reason).toMatch(/^status "published" is not valid/);
    expect(report.ledger.invalid).toHaveLength(1);
    expect(report.missingAgents).toEqual([
      { name: "cron-bot", files: 2 },
      { name: "night-bot", files: 2 },
      { name: "ledger-bot", files: 1 },
    ]);
    expect(await rowCounts(tdb.db)).toEqual(before);
    // With --as nothing is missing: the --as agent stands in.
    expect((await importFrom(tdb.db, dir, { dryRun: true, as: "deployer" })).missingAgents).toEqual([]);
  });

  it("--as stands in for unknown owners and confirms what the original author cannot", async () => {
    const report = await importFrom(tdb.db, join(FIXTURES, "seeds-invalid"), { as: "deployer" });
    expect(report.facts).toEqual({ created: 2, updated: 0, unchanged: 1, invalid: 3 });
    expect(report.as).toBe("deployer");
    expect(await getFact(tdb.db, team.reviewer, { name: "unknown-owner" })).toMatchObject({ author: "deployer", status: "draft" });
    expect(await getFact(tdb.db, team.reviewer, { name: "self-confirmed" })).toMatchObject({
      author: "reviewer",
      status: "confirmed",
      statusBy: "deployer",
      statusReason: "imported from project_self-confirmed.md: confirmed by reviewer: looks right to me",
    });
    // Idempotent under the same mapping too.
    expect((await importFrom(tdb.db, join(FIXTURES, "seeds-invalid"), { as: "deployer" })).facts).toEqual({ created: 0, updated: 0, unchanged: 3, invalid: 3 });
    await expect(importFrom(tdb.db, join(FIXTURES, "seeds"), { as: "nobody" })).rejects.toThrow(/--as nobody: no such agent/);
  });

  it("a seed file in a sub-folder takes the folder as its scope", async () => {
    const dir = join(work, "folders");
    const seed = (name: string, extra = "") => `---\nname: ${name}\ndescription: d\ntype: project\nowner: blog-writer\n${extra}---\n\nbody\n`;
    await mkdir(join(dir, "blog"), { recursive: true });
    await mkdir(join(dir, "My Notes"), { recursive: true });
    await writeFile(join(dir, "blog", "in-blog.md"), seed("in-blog"));
    await writeFile(join(dir, "blog", "says-ops.md"), seed("says-ops", "scope: ops\n"));
    await writeFile(join(dir, "My Notes", "x.md"), seed("x"));
    const report = await importFrom(tdb.db, dir);
    expect(report.files).toEqual([
      { file: "My Notes/x.md", outcome: "invalid", reason: expect.stringMatching(/^the file is in folder "My Notes", which names its scope: scope "My Notes" is not valid/) },
      { file: "blog/in-blog.md", outcome: "created", scope: "blog", name: "in-blog" },
      { file: "blog/says-ops.md", outcome: "invalid", reason: 'the file is in folder "blog" but says scope: ops; move it or fix the scope.' },
    ]);
  });

  it("a ledger with a bad line is not imported at all; each bad line is reported", async () => {
    const dir = join(work, "bad-ledger");
    await cp(join(FIXTURES, "seeds"), dir, { recursive: true });
    const good = (await readFile(join(dir, "ledger.jsonl"), "utf8")).split("\n")[0]!;
    const lines = [
      `{"action":"publish_note","target":"n-1","evidence":"https://note.com/x/n/1","actor":"blog-writer","at":"2025-05-01T00:00:00.000Z"}`,
      `{"action":"publish_note","target":"n-2","evidence":"ftp://note.com/x/n/2","actor":"blog-writer","at":"2025-05-01T00:00:00.000Z"}`,
      `{"action":"publish_note","target":"n-3","evidence":"https://note.com/x/n/3","actor":"cron-bot","at":"2025-05-01T00:00:00.000Z"}`,
      `not json`,
      good,
    ];
    await writeFile(join(dir, "ledger.jsonl"), `${lines.join("\n")}\n`);
    const before = await rowCounts(tdb.db);
    const report = await importFrom(tdb.db, dir);
    expect(report.ledger).toEqual({
      file: "ledger.jsonl",
      appended: 0,
      unchanged: 0,
      invalid: [
        { line: 2, reason: expect.stringMatching(/^evidence must be an absolute http:\/\/ or https:\/\/ URL/) },
        { line: 3, reason: expect.stringMatching(/^actor "cron-bot" is not an agent here/) },
        { line: 4, reason: "not a JSON object (each line of ledger.jsonl is one JSON object)." },
      ],
    });
    expect((await rowCounts(tdb.db)).ledger).toBe(before.ledger);

    // With --as the unknown actor is imported under that agent, keeping its own name in the row.
    await writeFile(join(dir, "ledger.jsonl"), `${[lines[0], lines[2]].join("\n")}\n`);
    const mapped = await importFrom(tdb.db, dir, { as: "reviewer" });
    expect(mapped.ledger).toMatchObject({ appended: 2, invalid: [] });
    const rows = (await tdb.db.query<{ actor: string; agent: string; target: string }>(LEDGER_ROWS)).rows;
    expect(rows.find((r) => r.target === "n-3")).toMatchObject({ actor: "cron-bot", agent: "reviewer" });
    expect(await verifyLedger(tdb.db)).toMatchObject({ ok: true });
  });

  it("an exported ledger line edited after export is refused by its hash; an old imported claim never displaces a live one", async () => {
    const unhashed = {
      seq: 1,
      kind: "claimed" as const,
      action: "deploy_prod",
      target: "v9",
      actor: "blog-writer",
      at: new Date("2025-01-01T00:00:00.000Z"),
      evidence: null,
      note: null,
      reason: null,
      claimExpiresAt: new Date("2025-01-01T00:10:00.000Z"),
      prevHash: GENESIS_HASH,
      claimRef: null,
    };
    const record = { ...unhashed, at: unhashed.at.toISOString(), claimExpiresAt: unhashed.claimExpiresAt.toISOString(), hash: eventHash(unhashed) };
    const dir = join(work, "claims");
    await cp(join(FIXTURES, "seeds"), dir, { recursive: true });

    await writeFile(join(dir, "ledger.jsonl"), `${JSON.stringify({ ...record, target: "v10" })}\n`);
    expect((await importFrom(tdb.db, dir)).ledger.invalid).toEqual([
      { line: 1, reason: "record #1 does not match its hash: it was changed after it was exported. Restore the original line." },
    ]);

    await claimLedger(tdb.db, actor(team.deployer), { action: "deploy_prod", target: "v9" });
    await writeFile(join(dir, "ledger.jsonl"), `${JSON.stringify(record)}\n`);
    const report = await importFrom(tdb.db, dir);
    expect(report.ledger).toMatchObject({ appended: 1, invalid: [] });
    expect(report.warnings).toEqual([]);
    const claim = await tdb.db.query<{ holder: string }>(`select holder from ledger_claims where action = 'deploy_prod' and target = 'v9'`);
    expect(claim.rows).toEqual([{ holder: "deployer" }]);
  });
});
