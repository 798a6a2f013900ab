// File modes of the embedded database's folder. Postgres refuses to run on a
// data directory other users can read; PGlite does not check, and unpacks its
// initial cluster with mode 0666 files. These keep the folder the service
// user's alone.
import { chmod, mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * The embedded database's folder holds token hashes and every fact: like
 * Postgres's own data directory it must be its user's alone. Created 0700; an
 * existing folder with group or other bits is tightened to 0700 (which also
 * makes any looser file inside unreachable to others). A folder we cannot
 * chmod (another user's) is refused. Files inside come out 0600 because the
 * CLI sets umask 077 before opening the database (src/cli/file-modes.ts),
 * and restrictDataDirFiles fixes the ones PGlite unpacks with explicit modes.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const mode = (await stat(dataDir)).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(dataDir, 0o700);
  } catch (error) {
    throw new DataDirModeError(
      `The embedded database folder ${dataDir} is readable by other users (mode ${mode.toString(8).padStart(4, "0")}) and could not be restricted ` +
        `(${(error as NodeJS.ErrnoException).code ?? "error"}). Run: chmod 700 ${dataDir}  (as its owner), or choose another AGENT_MEMORY_DATA_DIR.`,
    );
  }
}

export class DataDirModeError extends Error {
  override name = "DataDirModeError";
}

/**
 * Every file 0600 and every folder 0700 under the data folder. PGlite writes its
 * initial cluster (about a thousand files) with explicit 0666 modes, which the
 * umask does not catch; files Postgres creates later follow the umask. Run after
 * opening: on the first start it fixes the unpacked files, afterwards it only
 * reads modes (a few ms).
 */
export async function restrictDataDirFiles(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) {
      await restrictMode(path, 0o700);
      await restrictDataDirFiles(path);
    } else if (entry.isFile()) {
      await restrictMode(path, 0o600);
    }
  }
}

async function restrictMode(path: string, mode: number): Promise<void> {
  try {
    if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, mode);
  } catch (error) {
    // A file Postgres removed meanwhile (temporary files) needs nothing.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
