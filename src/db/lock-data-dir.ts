// PGlite is one process's database: two processes opening the same folder would
// corrupt it. A lock file (kept fresh while we run, considered stale after a
// crash) turns that into a clear refusal.
import lockfile from "proper-lockfile";

export class DataDirBusyError extends Error {
  override name = "DataDirBusyError";
}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, { stale: 15_000, update: 5_000, realpath: false });
  } catch (error) {
    if ((error as { code?: string }).code === "ELOCKED") {
      throw new DataDirBusyError(
        `The embedded database in ${dataDir} is in use by another agent-memory process (a running server?). ` +
          `Stop it first, or run against Postgres by setting DATABASE_URL.`,
      );
    }
    throw error;
  }
}
