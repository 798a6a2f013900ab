// PGlite is one process's database: two processes opening the same folder would
// corrupt it. A lock file (kept fresh while we run, considered stale after a
// crash) turns that into a clear refusal.
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import lockfile from "proper-lockfile";

/** Where the service that holds the folder says where its console is, once it listens. */
const SERVICE_FILE = "service.json";

/** Written by a service on the embedded database once it listens: the refusal of a second process names that console. */
export async function announceConsole(dataDir: string, consoleUrl: string): Promise<() => Promise<void>> {
  const file = join(dataDir, SERVICE_FILE);
  await writeFile(file, `${JSON.stringify({ consoleUrl, pid: process.pid })}\n`, { mode: 0o600 });
  return () => rm(file, { force: true });
}

function announcedConsole(dataDir: string): string | undefined {
  try {
    const { consoleUrl } = JSON.parse(readFileSync(join(dataDir, SERVICE_FILE), "utf8")) as { consoleUrl?: unknown };
    return typeof consoleUrl === "string" ? consoleUrl : undefined;
  } catch {
    return undefined;
  }
}

export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
}

/** `consoleUrl`: where the running server's web console is, named in the refusal (agents and tokens can be managed there). */
export async function lockDataDir(dataDir: string, consoleUrl?: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, { stale: 15_000, update: 5_000, realpath: false });
  } catch (error) {
    if ((error as { code?: string }).code === "ELOCKED") {
      // The running server's own address when it announced one (announceConsole); else
      // the address this process's settings give, which may not be the server's
      // (started with another PORT or PUBLIC_URL: its banner names its own).
      const announced = announcedConsole(dataDir);
      throw new DataDirBusyError(
        `The embedded database in ${dataDir} is in use by another agent-memory process (a running server?). ` +
          `Stop it first, or run against Postgres by setting DATABASE_URL.` +
          (announced
            ? ` While it runs, manage agents and tokens in its web console: ${announced} (sign in with a human agent's token).`
            : consoleUrl
              ? ` While it runs, manage agents and tokens in its web console: ${consoleUrl} with these settings, or the address its start-up banner printed (sign in with a human agent's token).`
              : ""),
      );
    }
    throw error;
  }
}
