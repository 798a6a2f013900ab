// The embedded database writes its files with Node's default modes (0666 minus
// the umask: often world-readable), and those files include the WAL with token
// hashes and every fact. Postgres itself refuses a group/world-accessible data
// directory; we do the equivalent for every command that opens the embedded
// database: umask 077 before it is opened, so each file comes out 0600 and each
// folder 0700. Set once per process (the CLI is one command per process).
import type { Config } from "../config/index.js";

export function restrictFileModes(config: Config): void {
  if (!config.databaseUrl) process.umask(0o077);
}
