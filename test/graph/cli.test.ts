// graph import / export through the built CLI (npm test builds it first): a file
// written by the reference server itself goes in and comes back out byte for
// byte; a second import creates nothing; bad lines are reported by number and
// make the exit code 1.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = path.join(ROOT, "dist/cli/main.js");
const REFERENCE = path.join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

/** Lets the reference server write its own memory.jsonl. */
async function referenceFile(file: string): Promise<void> {
  const client = new Client({ name: "writer", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [REFERENCE], env: { MEMORY_FILE_PATH: file }, stderr: "ignore" }));
  try {
    const entities = Array.from({ length: 1200 }, (_, i) => ({ name: `entity ${i}`, entityType: i % 2 ? "person" : "project", observations: [`fact ${i}`, `more "quoted" \\ ${i}`] }));
    for (let i = 0; i < entities.length; i += 400) await client.callTool({ name: "create_entities", arguments: { entities: entities.slice(i, i + 400) } });
    await client.callTool({
      name: "create_entities",
      arguments: {
        entities: [
          { name: "東京", entityType: "都市", observations: ["日本の首都", "🗼"] },
          { name: "서울", entityType: "도시", observations: [] },
        ],
      },
    });
    const relations = entities.slice(1).map((e, i) => ({ from: entities[i]!.name, to: e.name, relationType: "precedes" }));
    await client.callTool({ name: "create_relations", arguments: { relations: [...relations, { from: "東京", to: "서울", relationType: "近い" }, { from: "ghost", to: "東京", relationType: "haunts" }] } });
    await client.callTool({ name: "add_observations", arguments: { observations: [{ entityName: "entity 5", contents: ["added later"] }] } });
  } finally {
    await client.close();
  }
}

describe("graph import/export CLI", () => {
  let tdb: TestDatabase;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const cli = async (...args: string[]) => {
    const r = await run(process.execPath, [CLI, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
    return r.stdout;
  };
  const cliJson = async <T>(...args: string[]) => JSON.parse(await cli(...args, "--json")) as T;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm test does).`);
    tdb = await createTestDatabase("postgres");
    await createAgent(tdb.db, { name: "owner", kind: "human", writeScopes: ["*"] });
    await createAgent(tdb.db, { name: "graph-loader", kind: "agent", writeScopes: ["team"] });
    dir = await mkdtemp(path.join(tmpdir(), "am-graph-cli-"));
    env = { PATH: process.env.PATH, DATABASE_URL: tdb.url, LOG_LEVEL: "silent" };
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("round-trips the reference's memory.jsonl byte for byte, and a second import creates nothing", async () => {
    const original = path.join(dir, "memory.jsonl");
    await referenceFile(original);
    const first = await cliJson<Record<string, unknown>>("graph", "import", original);
    expect(first).toMatchObject({
      scope: "shared",
      as: "owner",
      entities: { created: 1202, existing: 0 },
      observations: { added: 2403, existing: 0 },
      relations: { created: 1201, existing: 0 },
      invalidCount: 0,
    });
    const exported = path.join(dir, "exported.jsonl");
    expect(await cliJson("graph", "export", exported)).toEqual({ file: exported, scope: "shared", entities: 1202, relations: 1201 });
    expect(await readFile(exported, "utf8")).toBe(await readFile(original, "utf8"));
    // Standard output carries the same bytes.
    expect(await cli("graph", "export")).toBe(await readFile(original, "utf8"));

    const second = await cliJson<Record<string, unknown>>("graph", "import", original);
    expect(second).toMatchObject({ entities: { created: 0, existing: 1202 }, observations: { added: 0, existing: 2403 }, relations: { created: 0, existing: 1201 } });
    const n = (await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_entities")).rows[0]!.n;
    expect(n).toBe(1202);
  });

  it("imports the older memory.json into another scope as another agent, reporting bad lines by number", async () => {
    const older = path.join(dir, "memory.json");
    const lines = [
      JSON.stringify({ type: "entity", name: "kept", entityType: "t", observations: ["one"] }),
      "",
      "{not json",
      JSON.stringify({ type: "entity", name: "", entityType: "t", observations: [] }),
      JSON.stringify({ type: "widget", name: "w" }),
      JSON.stringify({ type: "relation", from: "kept", to: "kept", relationType: "self" }),
      JSON.stringify({ type: "entity", name: "kept", entityType: "other", observations: ["two"] }),
      JSON.stringify({ type: "entity", name: "long", entityType: "t", observations: ["x".repeat(5000)] }),
    ];
    await writeFile(older, `\uFEFF${lines.join("\r\n")}\r\n`);
    // The valid lines go in, and the exit code is 1 (as for `import`): a script sees that lines were skipped.
    const failed = await run(process.execPath, [CLI, "graph", "import", older, "--scope", "team", "--as", "graph-loader", "--json"], { env }).then(
      () => expect.unreachable("graph import exited 0 although lines were invalid"),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("");
    const report = JSON.parse(failed.stdout) as { invalid: Array<{ line: number; error: string }> } & Record<string, unknown>;
    expect(report).toMatchObject({
      lines: 8,
      as: "graph-loader",
      entities: { created: 1, existing: 1 },
      observations: { added: 2, existing: 0 },
      relations: { created: 1, existing: 0 },
      invalidCount: 4,
    });
    expect(report.invalid).toEqual([
      { line: 3, error: "not valid JSON" },
      { line: 4, error: "name is empty; give it a name of at least one character." },
      { line: 5, error: '"type" must be "entity" or "relation", got "widget"' },
      { line: 8, error: "observations[0] is 5000 characters long; the limit is 4096 (GRAPH_TEXT_MAX_CHARS)." },
    ]);
    const row = (await tdb.db.query<{ created_by: string; obs: string[] }>(
      "select a.name as created_by, array(select content from graph_observations o where o.entity_id = e.id order by o.id) as obs from graph_entities e join agents a on a.id = e.created_by where e.scope = 'team' and e.name = 'kept'",
    )).rows[0]!;
    expect(row).toEqual({ created_by: "graph-loader", obs: ["one", "two"] });
    expect(await cli("graph", "export", "--scope", "team")).toBe(
      [
        JSON.stringify({ type: "entity", name: "kept", entityType: "t", observations: ["one", "two"] }),
        JSON.stringify({ type: "relation", from: "kept", to: "kept", relationType: "self" }),
      ].join("\n"),
    );
  });

  it("refuses an agent that may not write the scope, and a missing file, with a usage exit code", async () => {
    const file = path.join(dir, "memory.jsonl");
    await expect(run(process.execPath, [CLI, "graph", "import", file, "--as", "graph-loader"], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/graph-loader\) may not write to scope "shared"/),
    });
    await expect(run(process.execPath, [CLI, "graph", "import", path.join(dir, "nope.jsonl")], { env })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Cannot read .*nope\.jsonl: no such file/),
    });
  });
});
