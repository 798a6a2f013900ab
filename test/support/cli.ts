// Runs the built CLI (dist/) as a separate process, as an operator would.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI_PATH = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const baseEnv = (env: Record<string, string | undefined>) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LOG_LEVEL: "warn",
  ...env,
});

export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI_PATH, ...args], { env: baseEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses stdout as exactly one JSON object (what --json promises). */
export function onlyJson<T = Record<string, unknown>>(result: CliResult): T {
  const lines = result.stdout.trim().split("\n");
  if (lines.length !== 1) throw new Error(`expected one JSON line on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return JSON.parse(lines[0]!) as T;
}

export interface ServeProcess {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** Resolves with the MCP URL once the banner says the service is listening. */
  ready: Promise<string>;
  exited: Promise<number | null>;
}

export function startServe(env: Record<string, string | undefined>, args: string[] = []): ServeProcess {
  const child = spawn(process.execPath, [CLI_PATH, "serve", ...args], { env: baseEnv({ LOG_LEVEL: "info", PORT: "0", ...env }), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const ready = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /serving MCP at (http:\/\/\S+\/mcp)/.exec(err) ?? /"url":"(http:\/\/[^"]+\/mcp)"/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      onData();
    });
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      onData();
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening:\n${err}\n${out}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, ready, exited, stderr: () => err, stdout: () => out };
}
