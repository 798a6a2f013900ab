// Management commands open the database, make sure its schema is this
// release's (they never change it: only serve and migrate do, see
// requireSameSchema), run, and close it again. While a service runs on the embedded database, its
// statements run on that service's database, through the socket in the data
// folder (src/db/embedded/cli-socket-protocol.ts).
import { type Config, loadConfig } from "../config/index.js";
import type { Database } from "../db/core/database.js";
import { requireSameSchema } from "../db/schema/migrate.js";
import { openDatabase, withConnectionAdvice } from "../db/core/open.js";
import { createSecretGuard, type SecretGuard } from "../secrets/guard.js";
import { restrictFileModes } from "./file-modes.js";
import type { CliIo } from "./io.js";

/** What a command's work receives besides the database: the settings, and the secret guard every text it stores passes. */
interface CommandContext {
  config: Config;
  secrets: SecretGuard;
}

export async function withDatabase<T>(io: CliIo, work: (db: Database, ctx: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  restrictFileModes(config);
  const db = await openDatabase(config, { viaRunningService: true });
  try {
    await requireSameSchema(db).catch((error: unknown) => {
      throw withConnectionAdvice(error, config);
    });
    return await work(db, { config, secrets: createSecretGuard(config.secretGuard) });
  } finally {
    await db.close();
  }
}
