// What a test file opens through the helpers here (databases, services, MCP
// clients) registers its own close the moment it is open; the setup file closes
// them all, newest first, when the file's tests have run (setup-file.ts). A
// test file writes no teardown of its own for them: only a test whose subject
// is stopping (a shutdown, a restart) stops a service by hand, and a close run
// by hand is not run again.
// No vitest import: the benchmark uses the same helpers and closes by hand.

const opened: Array<() => Promise<unknown>> = [];

/** `close`, made safe to run twice, closed when the file ends (before anything opened earlier). */
export function closeWhenFileEnds(close: () => Promise<unknown>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const once = () => (closing ??= close().then(() => undefined));
  opened.push(once);
  return once;
}

/** Closes everything the file opened, newest first; the first failure is thrown once all are closed. */
export async function closeFileResources(): Promise<void> {
  let failure: unknown;
  for (let close = opened.pop(); close; close = opened.pop()) {
    await close().catch((error: unknown) => {
      failure ??= error;
    });
  }
  if (failure !== undefined) throw failure;
}
