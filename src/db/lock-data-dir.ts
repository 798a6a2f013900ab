// PGlite is one process's database: two processes opening the same folder would
// corrupt it. A lock file (kept fresh while we run, considered stale after a
// crash) turns that into a clear refusal.
import lockfile from "proper-lockfile";

export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
}

/** `consoleUrl`: where the running server's web console is, named in the refusal (agents and tokens can be managed there). */
export async function lockDataDir(dataDir: string, consoleUrl?: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, { stale: 15_000, update: 5_000, realpath: false });
  } catch (error) {
    if ((error as { code?: string }).code === "ELOCKED") {
      throw new DataDirBusyError(
        `The embedded database in ${dataDir} is in use by another agent-memory process (a running server?). ` +
          `Stop it first, or run against Postgres by setting DATABASE_URL.` +
          // The address as this process's settings give it: the running server may have been
          // started with others (PORT, PUBLIC_URL), and its banner names its own.
          (consoleUrl
            ? ` While it runs, manage agents and tokens in its web console: ${consoleUrl} with these settings, or the address its start-up banner printed (sign in with a human agent's token).`
            : ""),
      );
    }
    throw error;
  }
}
