// Facts as the facts capability exports them, turned into the snapshot shape.
import type { Queryable } from "../db/core/database.js";
import { type ExportedFact, type ExportFilters, exportFacts } from "../facts/index.js";
import type { SnapshotFact } from "./model.js";

/** Every matching fact, a batch at a time (never the whole table in memory). */
export async function* factsForExport(db: Queryable, filters: ExportFilters): AsyncGenerator<SnapshotFact> {
  for await (const fact of exportFacts(db, filters)) yield toSnapshot(fact);
}

function toSnapshot(r: ExportedFact): SnapshotFact {
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
    redactions: r.redactions ?? [],
    ...(r.supersedes ? { supersedes: r.supersedes } : {}),
    ...(r.superseded_by ? { supersededBy: r.superseded_by } : {}),
  };
}
