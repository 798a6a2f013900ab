// A fact's whole history as the database holds it: what an export writes and what
// an import compares a file with. Snapshots reads facts only through these
// functions (never the tables), and derives its file shapes from these types.
import type { Queryable } from "../../db/core/database.js";
import type { FactEvent } from "../model.js";
import type { FactContent } from "./replay.js";
import type { FactStatus, FactType } from "../rules.js";
import * as sql from "./history-sql.js";

/** A fact event as stored: with the actor's id, which an import compares. */
export interface StoredFactEvent extends FactEvent {
  actorId: number;
}

/** The content of one version, as stored. */
export interface StoredFactVersion extends FactContent {
  version: number;
}

/** A fact's whole history, oldest first. */
export interface FactHistory {
  versions: StoredFactVersion[];
  events: StoredFactEvent[];
  /** Tombstones of redacted versions (their text reads "[redacted]"); null when none. */
  redactions: FactRedaction[] | null;
}

export interface FactRedaction {
  version: number;
  by: string;
  at: string;
  reason: string;
}

/** A fact as an export writes it: the current version and its whole history; times ISO 8601 UTC with milliseconds. */
export interface ExportedFact extends FactHistory {
  /** The keyset of the export's batches. */
  id: number;
  scope: string;
  name: string;
  description: string;
  type: FactType;
  status: FactStatus;
  version: number;
  /** Author of the current version. */
  author: string;
  body: string;
  created: string;
  /** When the current version was stored. */
  updated: string;
  /** Supersession links, as "scope/name" (supersession.ts). */
  supersedes: string | null;
  superseded_by: string | null;
}

/** Which facts an export takes: null means every scope, or every status. */
export interface ExportFilters {
  scopes: string[] | null;
  statuses: FactStatus[] | null;
}

const EXPORT_BATCH = 200;

export async function countFactsForExport(db: Queryable, filters: ExportFilters): Promise<number> {
  return (await db.query<{ n: number }>(sql.COUNT_EXPORT_FACTS, [filters.scopes, filters.statuses])).rows[0]?.n ?? 0;
}

/** Every matching fact, a batch at a time (never the whole table in memory). */
export async function* exportFacts(db: Queryable, filters: ExportFilters, batch = EXPORT_BATCH): AsyncGenerator<ExportedFact> {
  let after = 0;
  for (;;) {
    const rows = (await db.query<ExportedFact>(sql.EXPORT_FACTS, [filters.scopes, filters.statuses, after, batch])).rows;
    yield* rows;
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}

/** The whole history of a fact the caller's transaction has locked. */
export async function factHistory(tx: Queryable, factId: number): Promise<FactHistory> {
  const row = (await tx.query<FactHistory>(sql.FACT_HISTORY, [factId])).rows[0];
  if (!row) throw new Error(`fact ${factId} vanished while locked`);
  return { versions: row.versions ?? [], events: (row.events ?? []).map((e) => ({ ...e, actorId: Number(e.actorId) })), redactions: row.redactions };
}
