// What a test file opens through the helpers here (databases, services, MCP
// clients) registers its own close the moment it is open; the setup file closes
// them all, newest first, when the file's tests have run (setup-file.ts). A
// test file writes no teardown of its own for them: only a test whose subject
// is stopping (a shutdown, a restart) stops a service by hand, and a close run
// by hand is not run again.
// No vitest import: the benchmark uses the same helpers and closes by hand.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/** A new temporary folder, removed with everything in it when the file ends (after what was opened in it later). */
export async function tempDirForFile(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closeWhenFileEnds(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
