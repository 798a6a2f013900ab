// A long command's progress on stderr ("label done/total"): redrawn in place
// at most every 200 ms at a terminal; elsewhere (a log, a pipe) a line at most
// every 5 s and the last one, or nothing when `quietUnlessTerminal`.
const TERMINAL_EVERY_MS = 200;
const LOG_EVERY_MS = 5_000;

export interface Progress {
  update(done: number, total: number): void;
  end(): void;
}

export function progress(stderr: NodeJS.WritableStream & { isTTY?: boolean }, label: string, options: { quietUnlessTerminal?: boolean } = {}): Progress | undefined {
  const terminal = stderr.isTTY === true;
  if (!terminal && options.quietUnlessTerminal) return undefined;
  let last = 0;
  let shown = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < (terminal ? TERMINAL_EVERY_MS : LOG_EVERY_MS)) return;
      last = now;
      shown = true;
      // \x1b[K clears what a longer earlier line left behind.
      stderr.write(terminal ? `\r${label} ${done}/${total}\x1b[K` : `${label} ${done}/${total}\n`);
    },
    end() {
      if (shown && terminal) stderr.write("\n");
    },
  };
}
