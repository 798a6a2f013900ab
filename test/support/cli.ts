// The CLI as tests run it: in this process (runCli), or the built CLI (dist/) as
// a separate process, as an operator would (runCliProcess, startServe).
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { runProgram } from "../../src/cli/program.js";
import { closeWhenFileEnds } from "./file-teardown.js";

export const CLI_PATH = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

// On Postgres, an embedded database in the working folder's ./.agent-memory (a
// developer's `npm start` in this checkout) would change the start-up (no new
// owner beside it): such runs get a data folder of their own that does not exist.
const NO_DATA_DIR = join(tmpdir(), `am-no-data-dir-${process.pid}`);

const baseEnv = (env: Record<string, string | undefined>) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LOG_LEVEL: "warn",
  ...(env.DATABASE_URL && !env.AGENT_MEMORY_DATA_DIR ? { AGENT_MEMORY_DATA_DIR: NO_DATA_DIR } : {}),
  ...env,
});

/**
 * Runs the CLI in this process (runProgram, the same program main.ts runs), with
 * the given environment and its output captured: no process per command. The
 * process's umask, which commands on the embedded database tighten, is restored.
 */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const umask = process.umask();
  try {
    const code = await runProgram([process.execPath, CLI_PATH, ...args], { env: baseEnv(env), stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)) });
    return { code, stdout, stderr };
  } finally {
    process.umask(umask);
  }
}

/** Runs the built CLI as a separate process: for what is about the process itself (its exit code and streams, signals, the terminal). */
export function runCliProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
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
  /**
   * Resolves with the MCP URL once the service has announced itself: the banner
   * on stderr, or (--json) its one result object on stdout. Not on the log line
   * "agent-memory listening": that also names the URL, but is written just
   * before the banner, on the other stream, and asynchronously (pino), so it
   * could be read before the banner had arrived (4 starts in 30 on a loaded
   * machine), and a test reading the banner at once found it missing.
   */
  ready: Promise<string>;
  exited: Promise<number | null>;
  /**
   * Resolves once `stream` has carried `text`: log lines (stdout) are written
   * asynchronously, so they may arrive after the banner that resolved `ready`.
   * Fails when the stream ends without it, or after `timeoutMs`.
   */
  waitForOutput(stream: "stdout" | "stderr", text: string, timeoutMs?: number): Promise<void>;
}

export function startServe(env: Record<string, string | undefined>, args: string[] = []): ServeProcess {
  const child = spawn(process.execPath, [CLI_PATH, "serve", ...args], { env: baseEnv({ LOG_LEVEL: "info", PORT: "0", ...env }), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const ready = new Promise<string>((resolve, reject) => {
    const onData = () => {
      // The --json result object is a line of its own beginning with "url"; log lines begin with "level".
      const m = /serving MCP at (http:\/\/\S+\/mcp)/.exec(err) ?? /^\{"url":"(http:\/\/[^"]+\/mcp)"/m.exec(out);
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
  const waitForOutput = (stream: "stdout" | "stderr", text: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const seen = () => (stream === "stdout" ? out : err);
      if (seen().includes(text)) return resolve();
      const source = stream === "stdout" ? child.stdout! : child.stderr!;
      const stop = () => {
        clearTimeout(timer);
        source.off("data", onData);
        source.off("close", onClose);
      };
      const fail = (why: string) => {
        stop();
        reject(new Error(`${stream} ${why} without ${JSON.stringify(text)}:\n${seen()}`));
      };
      // Added after the listener above that collects the output, so it sees each chunk collected.
      const onData = () => {
        if (!seen().includes(text)) return;
        stop();
        resolve();
      };
      const onClose = () => fail("closed");
      const timer = setTimeout(() => fail(`went ${timeoutMs} ms`), timeoutMs);
      source.on("data", onData);
      source.on("close", onClose);
    });
  // A service the test left running is killed when the file ends: only a test whose subject is stopping stops one itself.
  closeWhenFileEnds(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  return { child, ready, exited, waitForOutput, stderr: () => err, stdout: () => out };
}
