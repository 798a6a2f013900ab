// Facts as the database holds them, turned into the snapshot shape (export)
// and into comparable histories (import).
import type { Queryable } from "../db/database.js";
import type { FactStatus } from "../facts/index.js";
import type { SnapshotFact, StoredHistory } from "./model.js";
import * as sql from "./sql.js";

/** A row of EXPORT_FACTS: the file's fields, the history as stored, and the keyset id. */
type ExportRow = Omit<SnapshotFact, "history" | "earlier"> & StoredHistory & { id: number };

export interface ExportFilters {
  scopes: string[] | null;
  statuses: FactStatus[] | null;
}

export const EXPORT_BATCH = 200;

export async function countFacts(db: Queryable, filters: ExportFilters): Promise<number> {
  return (await db.query<{ n: number }>(sql.COUNT_EXPORT_FACTS, [filters.scopes, filters.statuses])).rows[0]?.n ?? 0;
}

/** Every matching fact, a batch at a time (never the whole table in memory). */
export async function* factsForExport(db: Queryable, filters: ExportFilters, batch = EXPORT_BATCH): AsyncGenerator<SnapshotFact> {
  let after = 0;
  for (;;) {
    const rows = (await db.query<ExportRow>(sql.EXPORT_FACTS, [filters.scopes, filters.statuses, after, batch])).rows;
    for (const row of rows) yield toSnapshot(row);
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}

function toSnapshot(r: ExportRow): SnapshotFact {
  return {
    name: r.name,
    description: r.description,
    type: r.type,
    status: r.status,
    scope: r.scope,
    author: r.author,
    version: r.version,
    created: r.created,
    updated: r.updated,
    body: r.body,
    history: r.events.map((e) => ({ version: e.version, event: e.kind, by: e.actor, at: e.at, from: e.from, to: e.to, reason: e.reason })),
    earlier: r.versions.filter((v) => v.version < r.version),
  };
}

export async function storedHistory(tx: Queryable, factId: number): Promise<StoredHistory> {
  const row = (await tx.query<StoredHistory>(sql.FACT_HISTORY, [factId])).rows[0];
  if (!row) throw new Error(`fact ${factId} vanished while locked`);
  return { versions: row.versions ?? [], events: (row.events ?? []).map((e) => ({ ...e, actorId: Number(e.actorId) })) };
}
