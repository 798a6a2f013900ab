// Wraps a command's action: creates the output for --json, runs it, and turns
// failures into a message and an exit code (2 for bad arguments).
import type { Command } from "commander";
import { runOf } from "./io.js";
import { createOutput, ExitCode, reportError, type Output } from "./output.js";

type Action<A extends unknown[]> = (out: Output, ...args: A) => Promise<void>;

export function action<A extends unknown[]>(run: Action<A>) {
  return async (...commanderArgs: unknown[]) => {
    // commander passes (...arguments, options, command)
    const command = commanderArgs[commanderArgs.length - 1] as Command;
    const opts = command.opts() as { json?: boolean };
    const json = Boolean(opts.json);
    const cli = runOf(command);
    const out = createOutput(json, cli.io);
    try {
      await run(out, ...(commanderArgs.slice(0, -1) as A));
      cli.exitCode = out.failedWith ?? ExitCode.OK;
    } catch (error) {
      cli.exitCode = reportError(error, json, cli.io);
    }
  };
}

export function parseList(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
