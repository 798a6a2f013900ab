// The real CLI against a real database: in this process (runCli, the program
// main.ts runs), and as a process where that is the point (its exit code and
// streams, serve, signals, file modes).
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { CLI_PATH, onlyJson, runCli, runCliProcess, startServe } from "../support/cli.js";
import { createEmptyPostgresDatabase, createTestDatabase, seedEmbeddedDataDir, type TestDatabase } from "../support/databases.js";
import { callOk, connectClient, startTestService } from "../support/service.js";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [join(dir, e.name), ...filesUnder(join(dir, e.name))] : [join(dir, e.name)]));
}

describe("agent and token management on Postgres", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let env: Record<string, string>;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    env = { DATABASE_URL: tdb.url! };
  });

  it("agent add --json prints the agent and a token that works at once", async () => {
    const added = await runCli(["agent", "add", "deployer", "--scopes", "shared,deploy", "--read-scopes", "blog", "--json"], env);
    expect(added.code).toBe(0);
    const out = onlyJson<{ agent: { name: string; kind: string; scopes: string[]; readScopes: string[] }; token: string }>(added);
    expect(out.agent).toMatchObject({ name: "deployer", kind: "agent", scopes: ["shared", "deploy"], readScopes: ["blog"] });
    expect(out.token).toMatch(/^amk_/);
    const client = await connectClient(service.mcpUrl, out.token);
    expect(await callOk(client, "whoami")).toMatchObject({ name: "deployer", writeScopes: ["deploy", "shared"] });
    await client.close();
  });

  it("human text output by default", async () => {
    const added = await runCli(["agent", "add", "alice", "--kind", "human"], env);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Created human "alice"/);
    expect(added.stdout).toMatch(/amk_[A-Za-z0-9_-]{43}/);
    const list = await runCli(["agent", "list"], env);
    expect(list.stdout).toMatch(/^NAME\s+KIND\s+SCOPES/m);
    expect(list.stdout).toMatch(/^alice\s+human/m);
  });

  it("token issue, list and revoke: a revoked token is refused immediately", async () => {
    await runCli(["agent", "add", "writer", "--no-token", "--json"], env);
    const issued = onlyJson<{ token: string; tokenInfo: { id: number; expiresAt: string } }>(await runCli(["token", "issue", "writer", "--expires-in", "30d", "--json"], env));
    const days = (Date.parse(issued.tokenInfo.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    const client = await connectClient(service.mcpUrl, issued.token);
    expect(await callOk(client, "whoami")).toMatchObject({ name: "writer" });

    const listed = onlyJson<{ tokens: Array<{ id: number; hint: string; agent: string }> }>(await runCli(["token", "list", "writer", "--json"], env));
    expect(listed.tokens).toHaveLength(1);
    expect(listed.tokens[0]).toMatchObject({ id: issued.tokenInfo.id, agent: "writer" });
    expect(JSON.stringify(listed)).not.toContain(issued.token.slice(8));

    const revoked = await runCli(["token", "revoke", String(issued.tokenInfo.id), "--json"], env);
    expect(revoked.code).toBe(0);
    expect(onlyJson<{ token: { revokedAt: string }; alreadyRevoked: boolean }>(revoked)).toMatchObject({ token: { revokedAt: expect.any(String) }, alreadyRevoked: false });
    await expect(client.callTool({ name: "whoami", arguments: {} })).rejects.toThrow(/invalid_token/);
    // Twice: says so, and keeps the first time.
    const again = await runCli(["token", "revoke", String(issued.tokenInfo.id)], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`was already revoked at ${onlyJson<{ token: { revokedAt: string } }>(revoked).token.revokedAt}; nothing changed.`);
  });

  it("agent disable shuts out every token of the agent; enable lets them back in", async () => {
    const out = onlyJson<{ token: string }>(await runCli(["agent", "add", "temp-bot", "--json"], env));
    expect((await runCli(["agent", "disable", "temp-bot", "--json"], env)).code).toBe(0);
    await expect(connectClient(service.mcpUrl, out.token)).rejects.toThrow(/invalid_token/);
    expect((await runCli(["agent", "enable", "temp-bot"], env)).code).toBe(0);
    const client = await connectClient(service.mcpUrl, out.token);
    expect(await callOk(client, "whoami")).toMatchObject({ name: "temp-bot" });
    await client.close();
  });

  it("bad arguments: a clear message and exit code 2 (one JSON object with --json)", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["agent", "add", "Bad Name"], /Agent name "Bad Name" is not valid/],
      [["agent", "add", "robot", "--kind", "robot"], /--kind must be "agent" or "human"/],
      [["agent", "add", "scoped", "--scopes", "Not Valid"], /Scope "Not Valid" is not valid/],
      [["token", "issue", "writer", "--expires-in", "soon"], /--expires-in must be a positive duration/],
      // ms() would read a bare 30 as 30 milliseconds: refused, naming the unit to add.
      [["token", "issue", "writer", "--expires-in", "30"], /--expires-in needs a unit: "30" alone would mean 30 milliseconds\. Write e\.g\. 30d for days/],
      [["token", "revoke", "abc"], /Token id must be a number/],
      [["agent", "frobnicate"], /unknown command/],
      [["agent", "add"], /missing required argument/],
      [["token", "list", "--bogus"], /unknown option/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, env);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(message);
      const j = await runCli([...args, "--json"], env);
      expect(j.code).toBe(2);
      expect(onlyJson<{ error: { message: string } }>(j).error.message).toMatch(message);
      // --json prints the error once, as JSON: not again as text on stderr.
      expect(j.stderr, args.join(" ")).toBe("");
    }
    // The process itself: its exit code, the message on stderr, and with --json one object on stdout alone.
    const [args, message] = cases[0]!;
    const r = await runCliProcess(args, env);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toMatch(message);
    const j = await runCliProcess([...args, "--json"], env);
    expect([j.code, j.stderr]).toEqual([2, ""]);
    expect(onlyJson<{ error: { message: string } }>(j).error.message).toMatch(message);
  });

  it("not found and conflicts exit 1 with a message", async () => {
    const missing = await runCli(["token", "issue", "nobody"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No agent named "nobody"/);
    const dup = await runCli(["agent", "add", "alice", "--json"], env);
    expect(dup.code).toBe(1);
    expect(onlyJson<{ error: { code: string } }>(dup).error.code).toBe("conflict");
  });
});

describe("migrate", () => {
  it("applies every migration to an empty database, then reports it up to date", async () => {
    const empty = await createEmptyPostgresDatabase();
    try {
      const first = onlyJson<{ applied: string[]; schemaVersion: number }>(await runCli(["migrate", "--json"], { DATABASE_URL: empty.url }));
      expect(first.applied.length).toBe(first.schemaVersion);
      expect(first.applied[0]).toBe("000001_baseline");
      const second = await runCli(["migrate"], { DATABASE_URL: empty.url });
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/is up to date/);
    } finally {
      await empty.drop();
    }
  });

  it("reports a bad configuration with exit code 1 and the variable to fix", async () => {
    const r = await runCli(["migrate"], { PORT: "http" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PORT must be a whole number/);
  });
});

describe("serve on the embedded database (no DATABASE_URL)", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "am-serve-"));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("first start without a terminal creates owner and writes its token to a 0600 file (path only in banner and log); SIGTERM exits 0", async () => {
    const serve = startServe({ AGENT_MEMORY_DATA_DIR: dataDir });
    const mcpUrl = await serve.ready;
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const tokenFile = join(dataDir, "owner-token");
    // The log line naming the file is written asynchronously: it may come after the banner.
    await serve.waitForOutput("stdout", tokenFile);
    // Nobody is at a terminal (stderr is a pipe, as under docker compose): the
    // token goes neither into the banner nor into the log stream, only the file's path.
    expect(serve.stderr()).toContain(`Its token is in ${tokenFile} (mode 0600)`);
    expect(serve.stdout()).toContain(tokenFile);
    expect(serve.stderr() + serve.stdout()).not.toMatch(/amk_/);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(token).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);

    const client = await connectClient(mcpUrl, token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("whoami");
    expect(await callOk(client, "whoami")).toMatchObject({ name: "owner", kind: "human", writeScopes: ["*"] });
    await client.close();

    // The embedded database's folder is 0700 and every file PGlite wrote is 0600 (umask 077).
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const loose = filesUnder(dataDir).filter((f) => (statSync(f).mode & 0o077) !== 0);
    expect(filesUnder(dataDir).length).toBeGreaterThan(10);
    expect(loose).toEqual([]);

    // The embedded database belongs to the running server: the CLI runs its
    // statements there (test/cli/cli-live.test.ts), a second server is refused.
    const listed = await runCli(["agent", "list", "--json"], { AGENT_MEMORY_DATA_DIR: dataDir });
    expect(onlyJson<{ agents: Array<{ name: string }> }>(listed).agents.map((a) => a.name)).toEqual(["owner"]);
    const busy = await runCli(["serve"], { AGENT_MEMORY_DATA_DIR: dataDir, PORT: "0" });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/in use by another agent-memory process/);
    expect(busy.stderr).toMatch(/web console: http:\/\/[^ ]+\/console/);

    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    // A first PGlite start plus several CLI processes: slow on a loaded machine.
  }, 180_000);

  it("later starts print only the URL, and the CLI manages the stopped database", async () => {
    const added = onlyJson<{ token: string }>(await runCli(["agent", "add", "bot", "--json"], { AGENT_MEMORY_DATA_DIR: dataDir }));
    const serve = startServe({ AGENT_MEMORY_DATA_DIR: dataDir });
    const mcpUrl = await serve.ready;
    expect(serve.stderr()).not.toMatch(/amk_/);
    const client = await connectClient(mcpUrl, added.token);
    expect(await callOk(client, "whoami")).toMatchObject({ name: "bot" });
    await client.close();
    serve.child.kill("SIGINT");
    expect(await serve.exited).toBe(0);
  });
});

describe("embedded data folder modes", () => {
  it("an existing folder open to others is tightened to 0700 by any command, and the files it writes are 0600", async () => {
    const parent = mkdtempSync(join(tmpdir(), "am-modes-"));
    const dataDir = join(parent, "data");
    try {
      mkdirSync(dataDir, { mode: 0o755 });
      chmodSync(dataDir, 0o777);
      const added = await runCli(["agent", "add", "bot", "--json"], { AGENT_MEMORY_DATA_DIR: dataDir });
      expect(added.code, added.stderr).toBe(0);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const files = filesUnder(dataDir);
      expect(files.length).toBeGreaterThan(10);
      expect(files.filter((f) => (statSync(f).mode & 0o077) !== 0)).toEqual([]);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("serve --json", () => {
  it("prints one JSON object with the URL and, on the first start, where the owner's token was written (never the token)", async () => {
    // A migrated database with nobody in it yet (its first start), without initdb's seconds.
    const dataDir = mkdtempSync(join(tmpdir(), "am-serve-json-"));
    await seedEmbeddedDataDir(dataDir);
    const serve = startServe({ AGENT_MEMORY_DATA_DIR: dataDir, LOG_LEVEL: "info" }, ["--json"]);
    try {
      // Resolved by the result object itself (not by a log line naming the URL).
      const mcpUrl = await serve.ready;
      const line = JSON.parse(serve.stdout().trim().split("\n").find((l) => l.includes('"url"') && !l.includes('"level"'))!) as {
        url: string;
        database: string;
        firstTokenFile?: string;
      };
      expect(line).toEqual({ url: mcpUrl, database: "pglite", firstTokenFile: join(dataDir, "owner-token") });
      expect(serve.stdout() + serve.stderr()).not.toMatch(/amk_/);
      const client = await connectClient(mcpUrl, readFileSync(line.firstTokenFile!, "utf8").trim());
      expect(await callOk(client, "whoami")).toMatchObject({ name: "owner" });
      await client.close();
    } finally {
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("serve on Postgres (DATABASE_URL)", () => {
  it("a port in use: exits 1 saying what to change, and creates no owner until a start that listens", async () => {
    const empty = await createEmptyPostgresDatabase();
    const tokenDir = mkdtempSync(join(tmpdir(), "am-serve-busy-"));
    const tokenFile = join(tokenDir, "owner-token");
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as AddressInfo).port;
    let serve: ReturnType<typeof startServe> | undefined;
    try {
      const busy = startServe({ DATABASE_URL: empty.url, FIRST_TOKEN_FILE: tokenFile, PORT: String(port) });
      expect(await busy.exited).toBe(1);
      expect(busy.stderr()).toContain(`Port ${port} is already in use on 127.0.0.1: stop what is using it, or start with another port, e.g. PORT=${port + 1} npm start.`);
      // Before, the owner and its token were created first and shown to nobody; every later start found an owner.
      expect(existsSync(tokenFile)).toBe(false);
      const agents = await runCli(["agent", "list", "--json"], { DATABASE_URL: empty.url });
      expect(JSON.parse(agents.stdout)).toEqual({ agents: [] });

      serve = startServe({ DATABASE_URL: empty.url, FIRST_TOKEN_FILE: tokenFile });
      const mcpUrl = await serve.ready;
      expect(serve.stderr()).toContain(`Its token is in ${tokenFile}`);
      const client = await connectClient(mcpUrl, readFileSync(tokenFile, "utf8").trim());
      expect(await callOk(client, "whoami")).toMatchObject({ name: "owner" });
      await client.close();
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
    } finally {
      // A failed assertion must not leave the service running after the test.
      if (serve && serve.child.exitCode === null && serve.child.signalCode === null) serve.child.kill("SIGKILL");
      taken.close();
      await empty.drop();
      rmSync(tokenDir, { recursive: true, force: true });
    }
  });

  it("migrates, serves and reports the database in /readyz", async () => {
    const empty = await createEmptyPostgresDatabase();
    const tokenDir = mkdtempSync(join(tmpdir(), "am-serve-pg-"));
    const serve = startServe({ DATABASE_URL: empty.url, FIRST_TOKEN_FILE: join(tokenDir, "secrets", "owner") });
    try {
      const mcpUrl = await serve.ready;
      const ready = await fetch(mcpUrl.replace(/\/mcp$/, "/readyz"));
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", database: "postgres" });
      expect(serve.stderr()).toMatch(/database: Postgres at 127\.0\.0\.1:5432\//);
      expect(serve.stderr()).not.toMatch(/amk_/);
      expect(readFileSync(join(tokenDir, "secrets", "owner"), "utf8")).toMatch(/^amk_/);
      expect(statSync(join(tokenDir, "secrets", "owner")).mode & 0o777).toBe(0o600);
      expect(statSync(join(tokenDir, "secrets")).mode & 0o777).toBe(0o700);
    } finally {
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
      await empty.drop();
      rmSync(tokenDir, { recursive: true, force: true });
    }
  });
});

// Closing the terminal window `npm start` runs in: a real pseudo-terminal is hung up
// (test/support/pty-hangup.py), so the service gets SIGHUP and every later write to its
// stdout/stderr fails with EIO, as at a desk. Linux only (the helper uses /proc and prctl).
describe.runIf(process.platform === "linux")("serve at a terminal that closes", () => {
  const PTY_HANGUP = fileURLToPath(new URL("../support/pty-hangup.py", import.meta.url));
  interface Exit {
    cmd: string;
    after: number;
    code?: number;
    signal?: number;
  }
  /** Starts the command on a terminal, closes it after the banner, and reports how each of its processes ended. */
  const closeTerminalOf = (command: string[], env: Record<string, string>) =>
    new Promise<{ exits: Exit[]; alive: string[] }>((resolve, reject) => {
      // The hung-up service must be gone well within WAIT seconds (its bound here is 2 s + 5 s).
      execFile("python3", [PTY_HANGUP, "serving MCP at", "12", ...command], { env, timeout: 170_000 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stdout}\n${stderr}`));
        else resolve(JSON.parse(stdout) as { exits: Exit[]; alive: string[] });
      });
    });
  /** pg_control's state (after the system identifier and two version numbers): 1 "shut down" after a clean close; 6 "in production" is what a crash leaves, and the next start runs recovery. */
  const clusterState = (dataDir: string) => readFileSync(join(dataDir, "global", "pg_control")).readUInt32LE(16);
  const SIGHUP = 1;

  it.each([
    ["the service leads the terminal's session (it gets SIGHUP at once)", (node: string) => [node, CLI_PATH, "serve"]],
    // As in a terminal window: the shell gets SIGHUP, and the service gets it once the shell has gone;
    // log lines written in between already fail with EIO.
    ["the service runs under a shell (it gets SIGHUP once the shell has gone)", (node: string) => ["sh", "-c", '"$0" "$1" serve; echo stopped', node, CLI_PATH]],
  ])("%s: it stops cleanly, closes the embedded database and ends by SIGHUP", async (_name, command) => {
    const dataDir = mkdtempSync(join(tmpdir(), "am-hup-"));
    await seedEmbeddedDataDir(dataDir);
    try {
      const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, AGENT_MEMORY_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info", SHUTDOWN_TIMEOUT_MS: "2000" };
      const report = await closeTerminalOf(command(process.execPath), env);
      // Before: Node's default ended it at once with the database open ("in production"); a
      // graceful stop without care spun forever on EIO in pino's exit flush, or aborted (SIGABRT)
      // restoring the dead terminal's modes.
      expect(report.alive).toEqual([]);
      const service = report.exits.find((e) => e.cmd.includes("main.js"));
      expect(service).toMatchObject({ signal: SIGHUP });
      expect(service!.after).toBeLessThan(7);
      expect(clusterState(dataDir)).toBe(1);
      // And the data folder is free at once (its lock released, nothing to recover).
      expect((await runCli(["agent", "list"], { AGENT_MEMORY_DATA_DIR: dataDir })).code).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
