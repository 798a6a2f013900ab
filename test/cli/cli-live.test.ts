// Every CLI command against a running embedded service: the service holds the
// data folder, and each command runs its statements on the service's database
// through the socket in that folder (src/db/embedded/cli-socket-protocol.ts), with the
// output and exit codes it has against a stopped database. What the CLI does,
// agents see at once over MCP, and the other way round. A second server is
// still refused; a CLI transaction left idle is rolled back.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectSocketDatabase } from "../../src/db/embedded/cli-socket-client.js";
import { onlyJson, runCli, startServe, type ServeProcess } from "../support/cli.js";
import { seedEmbeddedDataDir } from "../support/databases.js";
import { callOk, connectClient } from "../support/service.js";

describe("the CLI while the embedded service runs", () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "am-cli-live-")), "data");
  const work = mkdtempSync(join(tmpdir(), "am-cli-live-files-"));
  // A short statement timeout: a CLI transaction idle that long is rolled back (the last case).
  const env = { AGENT_MEMORY_DATA_DIR: dataDir, LEDGER_DEFAULT_SCOPE: "shared", DB_STATEMENT_TIMEOUT_MS: "3000" };
  const cli = (...args: string[]) => runCli(args, env);
  let serve: ServeProcess;
  let mcpUrl: string;
  let writer: Client;

  beforeAll(async () => {
    await seedEmbeddedDataDir(dataDir);
    serve = startServe(env);
    mcpUrl = await serve.ready;
  }, 120_000);

  it("manages agents and tokens on the service's database, and the service sees them at once", async () => {
    expect(statSync(join(dataDir, "cli.sock")).mode & 0o777).toBe(0o600);
    const added = await cli("agent", "add", "writer", "--scopes", "shared,blog", "--json");
    expect(added.code).toBe(0);
    const token = onlyJson<{ token: string }>(added).token;
    writer = await connectClient(mcpUrl, token, "writer");
    expect(await callOk(writer, "whoami")).toMatchObject({ name: "writer", kind: "agent" });

    // The same refusal and exit code as against a stopped database.
    const again = await cli("agent", "add", "writer");
    expect(again).toMatchObject({ code: 1, stderr: 'error: An agent named "writer" already exists.\n' });
    expect((await cli("agent", "add", "reviewer", "--kind", "human", "--scopes", "*", "--no-token")).code).toBe(0);
    expect((await cli("agent", "scopes", "writer", "--scopes", "shared,blog,ops")).code).toBe(0);
    const listed = onlyJson<{ agents: Array<{ name: string }> }>(await cli("agent", "list", "--json"));
    expect(listed.agents.map((a) => a.name).sort()).toEqual(["owner", "reviewer", "writer"]);

    const issued = onlyJson<{ tokenInfo: { id: number; hint: string } }>(await cli("token", "issue", "writer", "--json")).tokenInfo;
    expect((await cli("token", "list", "writer")).stdout).toContain(issued.hint);
    expect((await cli("token", "revoke", String(issued.id))).code).toBe(0);
    expect((await cli("grant", "list")).code).toBe(0);
    expect((await cli("agent", "disable", "reviewer")).code).toBe(0);
    expect((await cli("agent", "enable", "reviewer")).code).toBe(0);
    expect((await cli("migrate")).code).toBe(0);
  }, 120_000);

  it("runs the ledger's and the graph's commands, and exports and imports a whole tree", async () => {
    await callOk(writer, "memory_store", { name: "deploy-rule", description: "本番デプロイの前にマイグレーションを実行する", type: "project", body: "Why: the API fails on the old schema." });
    await callOk(writer, "ledger_claim", { action: "deploy_prod", target: "v1" });
    await callOk(writer, "ledger_record", { action: "deploy_prod", target: "v1", evidence: "https://ci.example/runs/1" });
    await callOk(writer, "create_entities", { entities: [{ name: "pipeline", entityType: "system", observations: ["runs migrations first"] }] });

    expect((await cli("ledger", "verify")).stdout).toMatch(/^ok: 2 ledger event\(s\), chain intact/);
    expect((await cli("ledger", "action", "set", "deploy_prod", "--scope", "ops")).code).toBe(0);
    expect((await cli("ledger", "action", "list")).stdout).toContain("deploy_prod");
    const voided = await cli("ledger", "void", "deploy_prod", "v1", "--reason", "wrong build", "--as", "reviewer");
    expect(voided.code, voided.stderr).toBe(0);
    expect((await cli("ledger", "export", "--output", join(work, "ledger.jsonl"))).code).toBe(0);

    const graphFile = join(work, "graph.jsonl");
    expect((await cli("graph", "export", graphFile, "--scope", "shared")).code).toBe(0);
    expect(readFileSync(graphFile, "utf8")).toContain('"name":"pipeline"');
    writeFileSync(join(work, "more.jsonl"), '{"type":"entity","name":"canary","entityType":"step","observations":[]}\n');
    expect((await cli("graph", "import", join(work, "more.jsonl"), "--scope", "shared", "--as", "writer")).code).toBe(0);
    expect(await callOk(writer, "open_nodes", { names: ["canary"] })).toMatchObject({ entities: [{ name: "canary" }] });

    const tree = join(work, "tree");
    const exported = await cli("export", tree);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain("Exported 1 fact(s)");
    expect(readFileSync(join(tree, "shared", "graph.jsonl"), "utf8")).toContain('"name":"canary"');
    const imported = await cli("import", tree);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("facts:  0 created, 0 updated, 1 unchanged, 0 invalid");
    // The service kept serving throughout.
    expect(await callOk(writer, "whoami")).toMatchObject({ name: "writer" });
  }, 120_000);

  it("still refuses a second server on the same folder, naming the running service's console (not its own settings' port)", async () => {
    const second = await runCli(["serve", "--json"], { ...env, PORT: "0" });
    expect(second.code).toBe(1);
    const message = onlyJson<{ error: { code: string; message: string } }>(second).error;
    expect(message.code).toBe("database_in_use");
    expect(message.message).toMatch(/in use by another agent-memory process/);
    expect(message.message).toContain(`manage agents and tokens in its web console: ${mcpUrl.replace(/\/mcp$/, "/console")} (sign in with a human agent's token)`);
  }, 60_000);

  it("rolls back a CLI transaction left idle past the statement timeout, or by a CLI that went away; the service goes on", async () => {
    const idle = await connectSocketDatabase(join(dataDir, "cli.sock"));
    await expect(
      idle!.transaction(async (tx) => {
        await tx.query("insert into ledger_actions (action, scope, set_by) values ('idle_one', 'ops', 'test')");
        await new Promise((resolve) => setTimeout(resolve, 4_000));
        await tx.query("select 1");
      }),
    ).rejects.toThrow(/closed the connection/);

    const gone = await connectSocketDatabase(join(dataDir, "cli.sock"));
    await expect(
      gone!.transaction(async (tx) => {
        await tx.query("insert into ledger_actions (action, scope, set_by) values ('gone_one', 'ops', 'test')");
        await gone!.close();
        await tx.query("select 1");
      }),
    ).rejects.toThrow(/closed the connection/);

    expect(await callOk(writer, "whoami")).toMatchObject({ name: "writer" });
    const actions = (await cli("ledger", "action", "list")).stdout;
    expect(actions).not.toContain("idle_one");
    expect(actions).not.toContain("gone_one");
  }, 60_000);
});
