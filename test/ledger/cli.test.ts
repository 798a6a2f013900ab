// `agent-memory ledger verify | export`, run as the built CLI in a child process.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { eventHash } from "../../src/ledger/event.js";
import { claimLedger, recordLedger, releaseLedger } from "../../src/ledger/store.js";
import { claimAndRecord } from "./support.js";
import { CLI_PATH, onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

describe("agent-memory ledger verify and export", () => {
  let tdb: TestDatabase;
  let dir: string;

  const cli = (args: string[]) => runCli(args, { DATABASE_URL: tdb.url! });

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does).`);
    tdb = await createTestDatabase("postgres");
    dir = await mkdtemp(join(tmpdir(), "am-ledger-cli-"));
    const a = await createAgent(tdb.db, { name: "blog-writer", kind: "agent", writeScopes: ["shared"] });
    const b = await createAgent(tdb.db, { name: "deployer", kind: "agent", writeScopes: ["shared"] });
    const writer = { agentId: a.id, name: a.name };
    const deployer = { agentId: b.id, name: b.name };
    await claimLedger(tdb.db, writer, { action: "publish_qiita", target: "article-1" });
    await recordLedger(tdb.db, writer, { action: "publish_qiita", target: "article-1", evidence: "https://qiita.com/w/items/1", note: "日本語のメモ" });
    await claimLedger(tdb.db, deployer, { action: "deploy_prod", target: "v1.0.0" });
    await releaseLedger(tdb.db, deployer, { action: "deploy_prod", target: "v1.0.0", reason: "tests failed" });
    await claimAndRecord(tdb.db, deployer, { action: "deploy_prod", target: "v1.0.1", evidence: "https://ci.example/runs/101" });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("verify: exit 0 with ok and the row count", async () => {
    const [text, json] = await Promise.all([cli(["ledger", "verify"]), cli(["ledger", "verify", "--json"])]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    expect(text.stdout).toMatch(/^ok: 6 ledger event\(s\), chain intact\. Last hash: [0-9a-f]{64}\n$/);
    expect(json.code).toBe(0);
    expect(onlyJson(json)).toEqual({ ok: true, rows: 6, lastSeq: 6, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("export: JSON Lines in seq order on stdout, every hash recomputable", async () => {
    const run = await cli(["ledger", "export"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    const records = lines.map((l) => JSON.parse(l));
    expect(records.map((r) => [r.seq, r.kind])).toEqual([
      [1, "claimed"],
      [2, "executed"],
      [3, "claimed"],
      [4, "released"],
      [5, "claimed"],
      [6, "executed"],
    ]);
    expect(records[1]).toMatchObject({ action: "publish_qiita", target: "article-1", actor: "blog-writer", evidence: "https://qiita.com/w/items/1", note: "日本語のメモ" });
    for (const r of records) {
      const { hash, ...rest } = r;
      const recomputed = eventHash({ ...rest, at: new Date(rest.at), claimExpiresAt: rest.claimExpiresAt ? new Date(rest.claimExpiresAt) : null });
      expect(recomputed).toBe(hash);
    }
  });

  it("export --output writes the same lines to a file and summarizes with --json", async () => {
    const file = join(dir, "ledger.jsonl");
    await writeFile(file, "an older export\n");
    const [run, stdoutExport, usage] = await Promise.all([
      cli(["ledger", "export", "--output", file, "--json"]),
      cli(["ledger", "export"]),
      cli(["ledger", "export", "--json"]),
    ]);
    expect(run.code).toBe(0);
    expect(onlyJson(run)).toEqual({ file, rows: 6, lastSeq: 6, lastHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await readFile(file, "utf8")).toBe(stdoutExport.stdout);
    expect(existsSync(`${file}.partial`)).toBe(false);

    expect(usage.code).toBe(2);
    expect(onlyJson(usage)).toEqual({ error: { code: "usage", message: expect.stringMatching(/--json needs --output/) } });
  });

  it("verify: exit 1 naming the first broken link after a superuser edits a row with the trigger disabled", async () => {
    await tdb.db.exec(`
      alter table ledger_events disable trigger ledger_events_append_only;
      update ledger_events set evidence = 'https://evil.example/fake' where seq = 2;
      alter table ledger_events enable trigger ledger_events_append_only;`);
    const [text, json] = await Promise.all([cli(["ledger", "verify"]), cli(["ledger", "verify", "--json"])]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^BROKEN at event #2: event #2 does not match its hash: its content was changed after it was written\. 1 event\(s\) before it verified\.\n$/);
    expect(json.code).toBe(1);
    expect(onlyJson(json)).toMatchObject({ ok: false, rows: 1, broken: { seq: 2 } });
  });
});
