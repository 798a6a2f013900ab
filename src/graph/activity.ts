// Recent graph writes for the console's activity feed, readable scopes only.
import { type Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/core/database.js";
import { LIST_SCAN_MAX } from "../limits.js";
import * as sql from "./activity-sql.js";

interface GraphActivity {
  kind: "entity" | "relation" | "observation";
  /** Added by a create/add tool, or removed by a delete tool (who deleted it: actor). */
  action: "added" | "deleted";
  scope: string;
  /** The entity (for a relation, its `from` end). */
  subject: string;
  /** Entity type (deleted: with its observation count), "type → to" of a relation, or the observation's start. */
  detail: string;
  actor: string;
  at: string;
}

/** The tables a graph write is read from, in the order of RECENT_GRAPH_WRITES' $6. */
export const GRAPH_ACTIVITY_SOURCES = ["graph_entities", "graph_relations", "graph_observations", "graph_deletions"] as const;
export type GraphActivitySource = (typeof GRAPH_ACTIVITY_SOURCES)[number];

export interface GraphActivityPart {
  /** Kept writes of this table, newest first (with an actor, only above `stop`); each with its row id. */
  writes: Array<GraphActivity & { id: number }>;
  /** A walk stopped at its bound (scanMax) before finding `limit` writes by the actor: read on below this id. */
  stop: number | null;
  /** When stopped: the time of the row at `stop`; what is left below it is older. */
  stopAt: string | null;
  /** As many writes as asked for came back: older ones may exist below the last. */
  full: boolean;
}

export type RecentGraphWrites = Record<GraphActivitySource, GraphActivityPart>;

/**
 * The newest writes in the caller's readable scopes, each scope of each table
 * read through its own index (am_recent_page), so the cost follows what the caller
 * may read and `limit`, not what others wrote elsewhere. With an actor, at most
 * `scanMax` rows of each table are looked through (LIST_SCAN_MAX). `before`
 * (a row id per table) reads older writes only.
 */
export async function recentGraphWrites(
  db: Queryable,
  caller: Caller,
  options: { actor?: string | undefined; limit: number; scanMax?: number | undefined; before?: Partial<Record<GraphActivitySource, number | null>> | undefined },
): Promise<RecentGraphWrites> {
  const readable = readableScopes(caller);
  const rows = (
    await db.query<GraphActivity & { source: GraphActivitySource; id: string; kept: boolean; stop: string | null; stop_at: string | null }>(sql.RECENT_GRAPH_WRITES, [
      readable.all,
      readable.scopes,
      options.actor ?? null,
      options.limit,
      options.scanMax ?? LIST_SCAN_MAX,
      GRAPH_ACTIVITY_SOURCES.map((s) => options.before?.[s] ?? null),
    ])
  ).rows;
  const parts = {} as RecentGraphWrites;
  for (const source of GRAPH_ACTIVITY_SOURCES) {
    const mine = rows.filter((r) => r.source === source);
    const stop = mine[0]?.stop == null ? null : Number(mine[0].stop);
    const kept = mine.filter((r) => r.kept);
    parts[source] = {
      writes: kept
        .filter((r) => stop === null || Number(r.id) > stop)
        .map((r) => ({ id: Number(r.id), kind: r.kind, action: r.action, scope: r.scope, subject: r.subject, detail: r.detail, actor: r.actor, at: r.at })),
      stop,
      stopAt: mine[0]?.stop_at ?? null,
      full: kept.length >= options.limit,
    };
  }
  return parts;
}
