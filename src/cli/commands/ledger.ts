// ledger verify | export
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Command } from "commander";
import { eventJson, exportLedger, type LedgerEvent, verifyLedger } from "../../ledger/index.js";
import { withDatabase } from "../context.js";
import { ExitCode, UsageError, type Output } from "../output.js";
import { action } from "../run.js";
import { registerLedgerAdminCommands } from "./ledger-admin.js";

export function registerLedgerCommands(program: Command): void {
  const ledger = program.command("ledger").description("audit the handoff ledger of external actions, map actions to scopes, void entries");
  registerLedgerAdminCommands(ledger);

  ledger
    .command("verify")
    .description("walk the hash chain; exit 0 with the row count when intact, exit 1 at the first broken link")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const report = await withDatabase(out.io, (db) => verifyLedger(db));
        out.result(report, () =>
          report.ok
            ? `ok: ${report.rows} ledger event(s), chain intact. Last hash: ${report.lastHash}`
            : `BROKEN at event #${report.broken!.seq}: ${report.broken!.problem}. ${report.rows} event(s) before it verified.`,
        );
        if (!report.ok) out.fail(ExitCode.FAILURE);
      }),
    );

  ledger
    .command("export")
    .description("write every ledger event as JSON Lines (one per line, in order, with hashes) to stdout or a file")
    .option("--output <file>", "write to this file instead of stdout (replaced only once the export is complete)")
    .option("--json", "print a one-object summary (needs --output: without it stdout carries the JSON Lines)")
    .action(
      action(async (out: Output, opts: { output?: string }) => {
        if (out.json && !opts.output) throw new UsageError("--json needs --output <file>: without it, stdout carries the exported JSON Lines.");
        if (!opts.output) {
          const lines = jsonLines(out.io.stdout);
          try {
            await withDatabase(out.io, (db) => exportLedger(db, lines.write));
          } catch (error) {
            // The reader went away (e.g. piped into head): stop quietly, like other Unix tools.
            if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
          } finally {
            lines.detach();
          }
          return;
        }
        // Written next to the target and renamed at the end: a failed export never
        // leaves a truncated file under the name of a complete one.
        const file = opts.output;
        const partial = `${file}.partial`;
        const stream = createWriteStream(partial);
        const lines = jsonLines(stream);
        try {
          const summary = await withDatabase(out.io, (db) => exportLedger(db, lines.write));
          stream.end();
          await once(stream, "finish");
          await rename(partial, file);
          out.result({ file, ...summary }, () => `Exported ${summary.rows} ledger event(s) to ${file} (last seq ${summary.lastSeq}, last hash ${summary.lastHash}).`);
        } catch (error) {
          stream.destroy();
          await rm(partial, { force: true });
          throw error;
        }
      }),
    );
}

/**
 * One JSON object per line. Waits for 'drain', so a large ledger streams instead
 * of piling up in memory; a stream error (disk full, closed pipe) is kept and
 * thrown by the next write rather than crashing the process.
 */
function jsonLines(stream: NodeJS.WritableStream) {
  let failure: Error | undefined;
  const onError = (error: Error) => (failure = error);
  stream.on("error", onError);
  return {
    async write(event: LedgerEvent): Promise<void> {
      if (failure) throw failure;
      if (!stream.write(`${JSON.stringify(eventJson(event))}\n`)) await once(stream, "drain");
    },
    detach() {
      stream.off("error", onError);
    },
  };
}
