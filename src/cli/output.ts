// CLI output: human text by default, exactly one JSON object on stdout with
// --json (scripts parse it). Errors go to stderr as text, or in --json mode
// only as {"error": …} on stdout, so a script always gets one parseable object
// and a terminal does not show the same message twice.
import { DataDirBusyError } from "../db/embedded/data-dir-holder.js";
import { DomainError } from "../errors.js";
import type { CliIo } from "./io.js";

export const ExitCode = { OK: 0, FAILURE: 1, USAGE: 2 } as const;

export class UsageError extends Error {
  override name = "UsageError";
}

export interface Output {
  json: boolean;
  /** The run's streams and environment (progress lines, streamed exports, the settings). */
  io: CliIo;
  /** Print the command's result: `data` with --json, `text()` otherwise. */
  result(data: unknown, text: () => string): void;
  /** End the run with this exit code although the command finished (invalid lines skipped, a broken chain). */
  fail(code: number): void;
  /** The code fail() set, if any. */
  readonly failedWith: number | undefined;
}

export function createOutput(json: boolean, io: CliIo): Output {
  let failedWith: number | undefined;
  return {
    json,
    io,
    result(data, text) {
      io.stdout.write(json ? `${JSON.stringify(data)}\n` : `${text()}\n`);
    },
    fail(code) {
      failedWith = code;
    },
    get failedWith() {
      return failedWith;
    },
  };
}

/** Reports a failed command and returns the exit code to use. */
export function reportError(error: unknown, json: boolean, io: CliIo): number {
  let code: string;
  let exit: number;
  let message: string;
  if (error instanceof UsageError) {
    [code, exit, message] = ["usage", ExitCode.USAGE, error.message];
  } else if (error instanceof DomainError) {
    [code, exit, message] = [error.code, error.code === "invalid" ? ExitCode.USAGE : ExitCode.FAILURE, error.message];
  } else if (error instanceof DataDirBusyError) {
    // A script can tell "stop the server (or use the console) and retry" from a real failure.
    [code, exit, message] = ["database_in_use", ExitCode.FAILURE, error.message];
  } else {
    [code, exit, message] = ["error", ExitCode.FAILURE, error instanceof Error ? error.message : String(error)];
  }
  if (json) io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.stderr.write(`error: ${message}\n`);
  return exit;
}

/** A plain text table: a header row and padded columns. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return "(none)";
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

export const iso = (d: Date | null | undefined): string => (d ? d.toISOString() : "");
