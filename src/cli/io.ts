// Where one run of the CLI writes and what it reads: the process's streams and
// environment when agent-memory runs as a command (main.ts), a caller's when
// it runs in-process (runProgram in program.ts: the tests, which need no process
// per command). Every command writes through its Output (output.ts), never to
// process.stdout directly, and ends with the run's exit code, never
// process.exitCode.
import type { Command } from "commander";

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export const processIo = (): CliIo => ({ env: process.env, stdout: process.stdout, stderr: process.stderr });

/** One run: its io, and the exit code its command ended with. */
interface CliRun {
  io: CliIo;
  exitCode: number;
}

// The run of each program built (buildProgram), found from any of its commands.
const runs = new WeakMap<Command, CliRun>();

export function bindRun(program: Command, io: CliIo): CliRun {
  const run = { io, exitCode: 0 };
  runs.set(program, run);
  return run;
}

export function runOf(command: Command): CliRun {
  let root = command;
  while (root.parent) root = root.parent;
  const run = runs.get(root);
  if (!run) throw new Error("a command ran outside a program built by buildProgram");
  return run;
}
