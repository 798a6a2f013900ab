// The steps every part of an import shares: a transaction that a dry run
// rolls back with its result, a fact file's text, and why a file failed.
import type { Database, Queryable } from "../db/core/database.js";
import { classifyDatabaseError } from "../db/core/classify.js";
import { pgCode } from "../db/core/errors.js";
import { DomainError } from "../errors.js";
import { openImportFile } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";

/** Thrown at the end of a dry run's transaction to roll it back with its result. */
class DryRun<T> extends Error {
  constructor(readonly result: T) {
    super("dry run");
  }
}

export async function inTransaction<T>(db: Database, dryRun: boolean, work: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      const result = await work(tx);
      if (dryRun) throw new DryRun(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRun) return error.result as T;
    throw error;
  }
}

/**
 * Why a file failed, for the report. Rule violations say so themselves; a
 * constraint the database enforced is reported with its message. Connection
 * loss and timeouts end the whole import instead: they say nothing about the file.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  const classified = classifyDatabaseError(error);
  if (classified) throw classified;
  if (pgCode(error)) return `the database refused it: ${(error as Error).message}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EISDIR" || code === "ENOENT") return `could not read the file: ${(error as Error).message}`;
  throw error;
}

/** A fact file's text: a regular file within IMPORT_FILES.factFile (refused with the reason otherwise). */
export async function readFactFile(path: string): Promise<string> {
  const file = await openImportFile(path, IMPORT_FILES.factFile);
  try {
    return await file.text();
  } finally {
    await file.close();
  }
}
