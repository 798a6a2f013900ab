// What happened to facts lately, for the console's activity feed: the same
// events memory_get shows in a fact's history, across facts, readable scopes only.
import { type Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { LIST_SCAN_MAX_DEFAULT } from "../limits.js";
import { isoTime } from "./model.js";
import * as reviewSql from "./review-sql.js";

export interface FactActivity {
  kind: "created" | "updated" | "confirmed" | "deprecated";
  scope: string;
  name: string;
  version: number;
  actor: string;
  at: string;
  reason: string | null;
}

export interface RecentFactEvents {
  events: FactActivity[];
  /** The read stopped at its bound (scanMax) before finding `limit` events by the actor: older ones may exist. */
  scanCut: boolean;
}

/**
 * The newest events in the caller's readable scopes, each scope read through
 * its own index (sql/000034), so the cost follows what the caller may read and
 * `limit`, not what others wrote elsewhere. With an actor, at most `scanMax`
 * events of all readable scopes together are looked through (LIST_SCAN_MAX).
 */
export async function recentFactEvents(
  db: Queryable,
  caller: Caller,
  options: { actor?: string | undefined; limit: number; scanMax?: number | undefined },
): Promise<RecentFactEvents> {
  const readable = readableScopes(caller);
  const rows = (
    await db.query<{ kept: boolean; cut: boolean; kind: FactActivity["kind"]; scope: string; name: string; version: number; actor: string; at: Date; reason: string | null }>(
      reviewSql.RECENT_FACT_EVENTS,
      [readable.all, readable.scopes, options.actor ?? null, options.limit, options.scanMax ?? LIST_SCAN_MAX_DEFAULT],
    )
  ).rows;
  return {
    events: rows
      .filter((r) => r.kept)
      .map((r) => ({ kind: r.kind, scope: r.scope, name: r.name, version: r.version, actor: r.actor, at: isoTime(r.at), reason: r.reason })),
    scanCut: rows.some((r) => r.cut),
  };
}
