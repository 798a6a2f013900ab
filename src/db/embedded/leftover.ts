// The embedded database's folder beside a service that runs on Postgres: after
// `agent-memory move` it is a leftover the move marked (moved.json: where to,
// when), which may be deleted; without that mark it holds data that never
// reached Postgres, and the start-up says so (every token of it would be
// unknown here).
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

const MOVED_FILE = "moved.json";

export interface EmbeddedLeftover {
  dataDir: string;
  /** Set when `agent-memory move` copied it: to where (no password) and when. */
  moved?: { to: string; at: string };
}

/** The embedded database in `dataDir`, if there is one (a PGlite data folder: PG_VERSION). */
export function embeddedLeftover(dataDir: string): EmbeddedLeftover | undefined {
  if (!existsSync(join(dataDir, "PG_VERSION"))) return undefined;
  try {
    const moved = JSON.parse(readFileSync(join(dataDir, MOVED_FILE), "utf8")) as { to: string; at: string };
    return { dataDir, moved };
  } catch {
    return { dataDir };
  }
}

/** Marks the folder as moved to `to` (a description without a password). */
export async function markMoved(dataDir: string, to: string): Promise<void> {
  await writeFile(join(dataDir, MOVED_FILE), `${JSON.stringify({ to, at: new Date().toISOString() })}\n`, { mode: 0o600 });
}

/**
 * What a start on Postgres logs about the embedded folder beside it: that it was
 * moved here and may be deleted (only when `served`, the database this service
 * serves as describeDatabase names it, is where it went), or that it holds data
 * that never reached Postgres. A folder moved to another database is none of this
 * service's business: nothing.
 */
export function leftoverStartNote(leftover: EmbeddedLeftover, served: string): { level: "info" | "warn"; fields: Record<string, string>; message: string } | undefined {
  if (!leftover.moved) {
    return { level: "warn", fields: { dataDir: leftover.dataDir }, message: "an embedded database with its own agents and tokens sits beside this service, which runs on Postgres: move it (agent-memory move --to …) or delete it" };
  }
  if (served !== leftover.moved.to && !served.startsWith(`${leftover.moved.to} `)) return undefined;
  return { level: "info", fields: { dataDir: leftover.dataDir, movedTo: leftover.moved.to, movedAt: leftover.moved.at }, message: "the embedded database beside this service was moved here; its folder may be deleted" };
}
