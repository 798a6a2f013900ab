// `agent-memory move --to postgres://…`: the embedded database copied into an
// empty Postgres database as it is (agents with their token hashes, facts with
// history, the ledger with its chain and action mappings, the graph with its
// authors), checked, and the service serving the copy with every old token.
// Refused while the embedded database is in use, and into a database that
// holds data. A service on Postgres beside an embedded folder that was not
// moved creates no owner and says what to do.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { lockDataDir } from "../../src/db/embedded/data-dir-holder.js";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createLogger } from "../../src/logger.js";
import { startService } from "../../src/serve.js";
import { runCli } from "../support/cli.js";
import { createEmptyPostgresDatabase, TEST_TIMEOUTS } from "../support/databases.js";
import { callOk, connectClient, testConfig } from "../support/service.js";
import { contentsOf, expectWholeCopy, fillTeamMemory, type Team } from "../support/team-memory.js";

/** Everything but the migrator's own bookkeeping (each side migrated at its own time). */
const withoutBookkeeping = (c: Record<string, string[]>) => Object.fromEntries(Object.entries(c).filter(([t]) => !t.startsWith("schema_")));

let work: string;
let dataDir: string;
let team: Team;
let embedded: Record<string, string[]>;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "am-move-"));
  dataDir = join(work, "data");
  // A data folder as the service leaves it: the migrated template, then a team's memory.
  const db = await openPglite({ ...TEST_TIMEOUTS, dataDir, template: inject("pgliteTemplate") });
  try {
    team = await fillTeamMemory(db);
    embedded = withoutBookkeeping(await contentsOf(db));
  } finally {
    await db.close();
  }
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  if (work) await rm(work, { recursive: true, force: true });
});

async function emptyPostgres() {
  const empty = await createEmptyPostgresDatabase();
  const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 4, connectTimeoutMs: 5000 });
  cleanups.push(async () => {
    await db.close().catch(() => undefined);
    await empty.drop();
  });
  return { url: empty.url, db };
}

describe("agent-memory move", () => {
  it("refuses while the embedded database is in use, saying to stop the service first", async () => {
    const target = await emptyPostgres();
    const unlock = await lockDataDir(dataDir);
    try {
      const moved = await runCli(["move", "--to", target.url, "--json"], { AGENT_MEMORY_DATA_DIR: dataDir });
      expect(moved.code).toBe(1);
      expect(JSON.parse(moved.stdout)).toEqual({ error: { code: "database_in_use", message: expect.stringMatching(/is in use by a running service\. Stop it first/) } });
    } finally {
      await unlock();
    }
    expect((await target.db.query("select to_regclass('agents') as t")).rows).toEqual([{ t: null }]);
  });

  it("copies everything into an empty Postgres database, checks it, and the service serves it with every old token", async () => {
    const target = await emptyPostgres();
    const moved = await runCli(["move", "--to", target.url], { AGENT_MEMORY_DATA_DIR: dataDir });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(/^Moved embedded Postgres \(PGlite\) in .*data to Postgres at 127\.0\.0\.1:5432\/am_empty_\w+:\n  3 agents with 3 tokens \(every token keeps working\), 6 facts \(\d+ versions\), 7 ledger events \(chain verified\), 1 action mapping, 2 graph entities, 1 relation\n/);
    expect(moved.stdout).toContain("Next: DATABASE_URL=postgres://postgres@127.0.0.1:5432/am_empty_");
    expect(withoutBookkeeping(await contentsOf(target.db))).toEqual(embedded);
    expect((await target.db.query("select count(*)::int as n from facts where superseded_by_id is not null")).rows).toEqual([{ n: 1 }]);
    await expectWholeCopy(target.db, team);

    let banner = "";
    const config = testConfig({ DATABASE_URL: target.url, AGENT_MEMORY_DATA_DIR: dataDir, FIRST_START_OWNER: "true" });
    const service = await startService(config, { logger: createLogger("silent"), print: (t) => void (banner += t), db: target.db });
    try {
      expect(service.firstToken).toBeUndefined();
      expect(banner).not.toContain("holds an embedded database");
      const writer = await connectClient(service.mcpUrl, team.writer.token);
      expect(await callOk(writer, "ledger_check", { action: "publish_qiita", target: "記事-1" })).toMatchObject({ status: "EXECUTED" });
      expect(await callOk(writer, "open_nodes", { names: ["記事-1"], scope: "blog" })).toMatchObject({ entities: [{ createdBy: "blog-writer", observationsMeta: [{ createdBy: "deployer" }] }] });
      await callOk(writer, "memory_store", { name: "after-the-move", description: "Written on Postgres after the move", type: "project", body: "Why: a test." });
      await writer.close();
    } finally {
      await service.stop();
    }

    // Into a database that holds data: refused.
    const again = await runCli(["move", "--to", target.url], { AGENT_MEMORY_DATA_DIR: dataDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/holds agent-memory data already \(agents\): a move goes into an empty database/);
  });

  it("beside an embedded folder that was not moved, a first start on Postgres creates no owner and says how to move it", async () => {
    const target = await emptyPostgres();
    const other = join(work, "not-moved");
    const db = await openPglite({ ...TEST_TIMEOUTS, dataDir: other, template: inject("pgliteTemplate") });
    await db.close();
    let banner = "";
    const config = testConfig({ DATABASE_URL: target.url, AGENT_MEMORY_DATA_DIR: other, FIRST_START_OWNER: "true" });
    const service = await startService(config, { logger: createLogger("silent"), print: (t) => void (banner += t), db: target.db });
    try {
      expect(service.firstToken).toBeUndefined();
      expect(banner).toContain(`Note: ${other} holds an embedded database (its own agents, tokens and memory) that this service, on Postgres, does not use;`);
      expect(banner).toContain('stop this service and run npx agent-memory move --to "$DATABASE_URL"');
    } finally {
      await service.stop();
    }
  });
});
