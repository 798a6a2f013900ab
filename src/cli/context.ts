// Management commands open the database, make sure the schema is current, run,
// and close it again.
import { loadConfig } from "../config.js";
import type { Database } from "../db/database.js";
import { migrate } from "../db/migrate.js";
import { openDatabase } from "../db/open.js";
import { restrictFileModes } from "./file-modes.js";

export async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  restrictFileModes(config);
  const db = await openDatabase(config);
  try {
    await migrate(db);
    return await work(db);
  } finally {
    await db.close();
  }
}
