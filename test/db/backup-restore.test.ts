// The backup every team takes of Postgres: pg_dump (custom and plain format)
// restored into an empty database with no error, and the service serving the
// copy with every old token. And the remains of a restore that failed partway
// (data, no agents), which the service refuses instead of creating a new owner.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createLogger } from "../../src/logger.js";
import { startService } from "../../src/serve.js";
import { createEmptyPostgresDatabase, createTestDatabase, TEST_TIMEOUTS, type TestDatabase } from "../support/databases.js";
import { callOk, connectClient, startTestService, testConfig } from "../support/service.js";
import { contentsOf, expectWholeCopy, fillTeamMemory, type Team } from "../support/team-memory.js";

const run = promisify(execFile);

let source: TestDatabase;
let team: Team;
let work: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  source = await createTestDatabase("postgres");
  team = await fillTeamMemory(source.db);
  work = await mkdtemp(join(tmpdir(), "am-backup-"));
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  if (work) await rm(work, { recursive: true, force: true });
});

/** An empty database, and a pool on it once something is restored there. */
async function emptyTarget() {
  const empty = await createEmptyPostgresDatabase();
  const db = openPostgres({ ...TEST_TIMEOUTS, connectionString: empty.url, poolMax: 4, connectTimeoutMs: 5000 });
  cleanups.push(async () => {
    await db.close().catch(() => undefined); // a service started on it closed it already
    await empty.drop();
  });
  return { url: empty.url, db };
}

describe("the functions", () => {
  // pg_restore (and psql running a plain dump) runs with an empty search_path:
  // a function it calls (a check constraint's, a generated column's, an index
  // expression's) finds only pg_catalog then. So a function that names anything
  // of this schema (a table, a type, another function, pg_trgm's) either binds
  // it when created (a standard SQL body) or carries its own search_path.
  it("each one that names something of this schema binds it at creation or sets its search_path", async () => {
    const names = (await source.db.query<{ name: string }>(
      `select relname::text as name from pg_class where relnamespace = current_schema()::regnamespace
       union select typname::text from pg_type where typnamespace = current_schema()::regnamespace and typtype = 'c'
       union select proname::text from pg_proc where pronamespace = current_schema()::regnamespace`,
    )).rows.map((r) => r.name);
    const functions = (await source.db.query<{ name: string; body: string; bound: boolean; path: boolean }>(
      `select proname as name, prosrc as body, prosqlbody is not null as bound,
              coalesce(exists (select 1 from unnest(proconfig) c where c like 'search_path=%'), false) as path
         from pg_proc where pronamespace = current_schema()::regnamespace and proname like 'am\\_%' and prokind = 'f'`,
    )).rows;
    expect(functions.length).toBeGreaterThan(40);
    const unsafe = functions
      .filter((f) => !f.bound && !f.path)
      .map((f) => {
        const code = f.body.replace(/--[^\n]*/g, "");
        const named = names.filter((n) => n !== f.name && new RegExp(`\\b${n}\\b`).test(code));
        return { name: f.name, named: [...named, ...(/<%|%>|<->/.test(code) ? ["a pg_trgm operator"] : [])] };
      })
      .filter((f) => f.named.length > 0);
    expect(unsafe).toEqual([]);
  });
});

describe("pg_dump → restore into an empty database", () => {
  it.each([
    ["custom", async (file: string, url: string) => {
      await run("pg_dump", ["-Fc", "-f", file, source.url!]);
      // --exit-on-error: any error at all fails the restore (and this test).
      await run("pg_restore", ["--exit-on-error", "-d", url, file]);
    }],
    ["plain", async (file: string, url: string) => {
      await run("pg_dump", ["-f", file, source.url!]);
      await run("psql", ["-q", "-X", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null", "-f", file, url]);
    }],
  ] as const)("%s format: no error, every row, and the service serves the copy with every old token", async (format, dumpAndRestore) => {
    const target = await emptyTarget();
    await dumpAndRestore(join(work, `backup.${format}`), target.url);
    expect(await contentsOf(target.db)).toEqual(await contentsOf(source.db));
    await expectWholeCopy(target.db, team);

    const service = await startTestService(target.db, { FIRST_START_OWNER: "true" });
    expect(service.firstToken).toBeUndefined();
    const writer = await connectClient(service.mcpUrl, team.writer.token);
    expect(await callOk(writer, "whoami")).toMatchObject({ name: "blog-writer" });
    const check = await callOk<{ status: string }>(writer, "ledger_check", { action: "publish_qiita", target: "記事-1" });
    expect(check.status).toBe("EXECUTED");
    const recall = await callOk<{ hits: Array<{ name: string }> }>(writer, "memory_recall", { keywords: ["Qiita 태그"] });
    expect(recall.hits.map((f) => f.name)).toContain("qiita-tag-limit");
    // Writes work too: the sequences and the chain head came along.
    await callOk(writer, "memory_store", { name: "after-restore", description: "Written after the restore", type: "project", body: "Why: a test." });
    await writer.close();
  });
});

describe("a restore that failed partway", () => {
  it("leaves data without agents, and the service refuses to start on it instead of creating a new owner", async () => {
    const dump = join(work, "partial.dump");
    await run("pg_dump", ["-Fc", "-f", dump, source.url!]);
    // What a failed COPY of the agents table leaves: everything else restored.
    const { stdout } = await run("pg_restore", ["-l", dump]);
    const list = join(work, "partial.list");
    await writeFile(list, stdout.split("\n").filter((line) => !/TABLE DATA public agents /.test(line)).join("\n"));
    const target = await emptyTarget();
    await run("pg_restore", ["-L", list, "-d", target.url, dump]).catch(() => undefined); // the foreign keys fail
    expect(await readFile(list, "utf8")).not.toMatch(/TABLE DATA public agents /);

    const config = testConfig({ FIRST_START_OWNER: "true" });
    await expect(startService(config, { logger: createLogger("silent"), print: () => undefined, db: target.db })).rejects.toThrow(
      /holds tokens, facts, ledger events, graph entities but no agents.*restore that failed partway/s,
    );
    expect((await target.db.query<{ n: number }>("select count(*)::int as n from agents")).rows[0]!.n).toBe(0);
  });
});
