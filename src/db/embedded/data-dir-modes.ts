// File modes of the embedded database's folder. Postgres refuses to run on a
// data directory other users can read; PGlite does not check, and unpacks its
// initial cluster with mode 0666 files. These keep the folder the service
// user's alone.
import { chmod, lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * The embedded database's folder holds token hashes and every fact: like
 * Postgres's own data directory it must be its user's alone. Created 0700. An
 * existing folder is used only if it is a real folder (not a link: the setting
 * must name the folder itself, so nothing is done to a folder it merely points
 * at) that is empty or already an embedded database of this user; with group
 * or other bits it is then tightened to 0700 (which also makes any looser file
 * inside unreachable to others). Anything else is refused and left as it is.
 * Files inside come out 0600 because the CLI sets umask 077 before opening the
 * database (src/cli/file-modes.ts), and restrictDataDirFiles fixes the ones
 * PGlite unpacks with explicit modes.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  const found = await lstat(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new DataDirModeError(`The embedded database folder ${dataDir} cannot be read (${error.code ?? error.message}). Choose another AGENT_MEMORY_DATA_DIR.`);
  });
  if (!found) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    return;
  }
  const fix = "Point AGENT_MEMORY_DATA_DIR at a new or empty folder, or at the folder an earlier start created.";
  if (found.isSymbolicLink()) {
    const target = await realpath(dataDir).catch(() => "a missing path");
    throw new DataDirModeError(`The embedded database folder ${dataDir} is a link (to ${target}), which is left as it is. Give the folder's own path instead. ${fix}`);
  }
  if (!found.isDirectory()) throw new DataDirModeError(`${dataDir} is not a folder. ${fix}`);
  if (process.getuid && found.uid !== process.getuid()) {
    throw new DataDirModeError(`The embedded database folder ${dataDir} belongs to another user (uid ${found.uid}); it is left as it is. Run as its owner, or: ${fix}`);
  }
  const entries = await readdir(dataDir);
  if (entries.length > 0 && !entries.includes(CLUSTER_MARK)) {
    throw new DataDirModeError(`${dataDir} holds other files (${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""}) and no embedded database; it is left as it is. ${fix}`);
  }
  const mode = found.mode & 0o777;
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

/** The file every Postgres data directory, PGlite's included, holds at its top. */
const CLUSTER_MARK = "PG_VERSION";

class DataDirModeError extends Error {
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
