// The service's log as people and machines meet it, from the real CLI: at a
// terminal (a pseudo-terminal made by util-linux `script`) short readable lines,
// migrations counted in one line, and the probes every MCP client makes (GET /mcp
// 405, OAuth discovery 404s) kept out of sight at debug level; JSON lines when
// stdout is not a terminal or when LOG_FORMAT=json asks for them; readable lines
// into a pipe with LOG_FORMAT=pretty. No token in any log line.
import { spawn, type ChildProcess } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase } from "../support/databases.js";
import { CLI_PATH } from "../support/cli.js";

interface Run {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the output carries `text` (log lines are written asynchronously). */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  url: Promise<string>;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: Record<string, string>): Run {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  const waiters = new Set<() => void>();
  const collect = (d: Buffer) => {
    // A terminal ends lines with \r\n; colours are noise to these assertions.
    out += d.toString().replace(/\r\n/g, "\n").replace(/\u001b\[[0-9;]*m/g, "");
    for (const check of waiters) check();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = (text: string | RegExp, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const seen = () => (typeof text === "string" ? out.includes(text) : text.test(out));
      const check = () => {
        if (!seen()) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${String(text)} within ${timeoutMs} ms in:\n${out}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const url = waitFor(/serving MCP at (http:\/\/\S+\/mcp)/).then(() => /serving MCP at (http:\/\/\S+\/mcp)/.exec(out)![1]!);
  return { child, output: () => out, waitFor, url, exited };
}

/** `agent-memory serve` with stdout and stderr on a pseudo-terminal. */
const serveAtTerminal = (env: Record<string, string>) => run("script", ["-qfec", `exec ${process.execPath} ${CLI_PATH} serve`, "/dev/null"], env);
/** `agent-memory serve` with stdout and stderr into pipes. */
const serveIntoPipe = (env: Record<string, string>) => run(process.execPath, [CLI_PATH, "serve"], env);

/** What an MCP client does on connecting: probe, then call. */
async function probeAndCall(mcpUrl: string, token: string): Promise<void> {
  const origin = new URL(mcpUrl).origin;
  expect((await fetch(mcpUrl, { headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}` } })).status).toBe(405);
  expect((await fetch(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
  expect((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
  const call = await fetch(mcpUrl, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });
  expect(call.status).toBe(200);
}

async function stop(r: Run, viaTerminal: boolean): Promise<void> {
  // Ctrl-C typed at the terminal: SIGINT to the service, which stops gracefully.
  if (viaTerminal) r.child.stdin!.write("\u0003");
  else r.child.kill("SIGTERM");
  expect(await r.exited).toBe(0);
}

const logLines = (output: string) => output.split("\n").filter((l) => /^(\[\d\d:\d\d:\d\d\]|\{"level")/.test(l));

let database: { url: string; drop(): Promise<void> };
let token: string;

beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
});

describe("logs of agent-memory serve", () => {
  it("at a terminal: short readable lines, migrations counted, client probes out of sight, no token", async () => {
    const r = serveAtTerminal({ DATABASE_URL: database.url });
    const mcpUrl = await r.url;
    // The banner can reach the terminal in more than one read: wait for its token line.
    await r.waitFor(/^ {2}amk_\S+$/m);
    token = /^ {2}(amk_\S+)$/m.exec(r.output())![1]!;
    await probeAndCall(mcpUrl, token);
    await r.waitFor(/POST \/mcp 200 \d+ ms, owner: whoami ok/);
    await stop(r, true);
    const lines = logLines(r.output());
    expect(lines.length).toBeGreaterThan(2);
    expect(r.output()).not.toMatch(/\{"level"/);
    expect(lines.join("\n")).toMatch(/\] INFO: database ready: applied \d+ migrations?\b/);
    expect(r.output()).not.toMatch(/\d{6}_baseline/);
    // Probes are at debug level: not shown at the default level.
    expect(r.output()).not.toMatch(/GET \/mcp 405|well-known/);
    for (const line of lines) expect(line.length, line).toBeLessThan(300);
    // The token is in the banner, shown to the person at the terminal, and in no log line.
    expect(lines.filter((l) => l.includes(token))).toEqual([]);
    expect(r.output()).toContain(`  ${token}\n`);
    // The banner the person reads next: adding agents in the console first, then the CLI.
    expect(r.output()).toMatch(/Add your agents: sign in with that token at http:\/\/\S+\/console\/agents\n/);
    expect(r.output()).toContain("Or from a shell: npx agent-memory agent add blog-writer");
  }, 60_000);

  it("at a terminal with LOG_FORMAT=json: JSON lines, probes at debug level", async () => {
    const r = serveAtTerminal({ DATABASE_URL: database.url, LOG_FORMAT: "json", LOG_LEVEL: "debug" });
    const mcpUrl = await r.url;
    await probeAndCall(mcpUrl, token);
    await r.waitFor('"tools":["whoami"]');
    await stop(r, true);
    const lines = logLines(r.output()).map((l) => JSON.parse(l) as { level: number; msg: string; req?: { method: string; url: string }; res?: { statusCode: number } });
    expect(lines.find((l) => l.msg === "database ready")).toBeDefined();
    const probes = lines.filter((l) => l.res?.statusCode === 405 || l.res?.statusCode === 404);
    expect(probes.map((l) => `${l.req!.method} ${l.req!.url}`).sort()).toEqual([
      "GET /.well-known/oauth-authorization-server",
      "GET /.well-known/oauth-protected-resource/mcp",
      "GET /mcp",
    ]);
    for (const probe of probes) expect(probe.level).toBe(20); // pino's debug
    expect(r.output()).not.toContain(token);
  }, 60_000);

  it("into a pipe: JSON lines, without being asked", async () => {
    const r = serveIntoPipe({ DATABASE_URL: database.url });
    await probeAndCall(await r.url, token);
    await r.waitFor('"tools":["whoami"]');
    await stop(r, false);
    const lines = logLines(r.output());
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(r.output()).not.toMatch(/^\[\d\d:\d\d:\d\d\]/m);
  }, 60_000);

  it("into a pipe with LOG_FORMAT=pretty: readable lines, and the probes shown at debug level", async () => {
    const r = serveIntoPipe({ DATABASE_URL: database.url, LOG_FORMAT: "pretty", LOG_LEVEL: "debug" });
    await probeAndCall(await r.url, token);
    await r.waitFor(/POST \/mcp 200 \d+ ms, owner: whoami ok/);
    await stop(r, false);
    expect(r.output()).not.toMatch(/\{"level"/);
    expect(r.output()).toMatch(/\] DEBUG: GET \/mcp 405 \d+ ms/);
    expect(r.output()).toMatch(/\] DEBUG: GET \/\.well-known\/oauth-authorization-server 404 \d+ ms/);
    expect(r.output()).not.toContain(token);
  }, 60_000);
});
