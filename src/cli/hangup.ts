// The terminal running the service closed (SIGHUP). Node's default ends the
// process at once, leaving the embedded database unclosed, so serve stops as on
// SIGTERM instead. But by then every write to that terminal fails with EIO, and
// three things turn that into a crash or a hang (seen under a real pty, see
// test/support/pty-hangup.py):
//  1. pino's destination (sonic-boom, async) reports a failed line as an 'error'
//     nobody handles: an uncaught exception in the middle of the stop.
//  2. At exit, pino flushes pending lines with sonic-boom's flushSync, which
//     retries a failed write forever, 100 ms apart, whatever the error: the
//     process never exits, and no timer can end it (the loop is stuck in the
//     'exit' event). This is the hang CI saw after 5dc4b2e, even with the logger
//     silenced: a line logged before the hang-up was still being written.
//  (1 and 2 can happen before any SIGHUP arrives, e.g. under npm or a shell:
//  ../logger.ts drops the log on EIO whatever the signal.)
//  3. At exit, Node restores the terminal modes of stdin/stdout/stderr
//     (ResetStdio); on a hung-up terminal that fails with EIO and Node aborts
//     ("Assertion failed" in node.cc, SIGABRT).
// So: drop everything meant for the terminal, stop as usual, then end with
// SIGHUP's own default action (status 129, "killed by SIGHUP"), which runs
// neither 'exit' handlers nor ResetStdio. Past the bound, SIGKILL.
import type { Logger } from "pino";
import { muteLogger } from "../logger.js";

const ignore = () => {};

/** Makes output to the closed terminal harmless: nothing more is written, and a write already in flight fails silently. */
function dropTerminalOutput(logger: Logger): void {
  muteLogger(logger);
  process.stdout.on("error", ignore);
  process.stderr.on("error", ignore);
}

/** Ends the process as SIGHUP's default would, now that it has stopped cleanly. */
function endByHangup(): void {
  // Without listeners Node restores SIGHUP's default action (this removes signal-exit's
  // too; proper-lockfile's lock was released when the database closed).
  process.removeAllListeners("SIGHUP");
  process.kill(process.pid, "SIGHUP");
}

/**
 * On SIGHUP: silences the terminal, runs `stop` (the same graceful stop as on SIGTERM),
 * then ends the process by SIGHUP; by SIGKILL if the stop takes longer than `boundMs`.
 */
export function stopOnHangup(logger: Logger, boundMs: number, stop: (signal: NodeJS.Signals) => Promise<unknown>): void {
  let hungUp = false;
  // `on`, not `once`: a closing terminal can send SIGHUP more than once (the kernel, then the
  // shell or the primary), and with no listener of ours the next one would end the stop midway.
  process.on("SIGHUP", (signal: NodeJS.Signals) => {
    if (hungUp) return;
    hungUp = true;
    dropTerminalOutput(logger);
    // Kept referenced: the process must end here or in endByHangup, never by an ordinary
    // exit (which would abort in ResetStdio, see above).
    setTimeout(() => process.kill(process.pid, "SIGKILL"), boundMs);
    void stop(signal).finally(endByHangup);
  });
}
