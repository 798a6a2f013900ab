// What happened to facts lately, for the console's activity feed: the same
// events memory_get shows in a fact's history, across facts, readable scopes only.
import { type Caller } from "../../auth/caller.js";
import { readableScopes } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { LIST_SCAN_MAX } from "../../limits.js";
import { isoTime } from "../model.js";
import * as reviewSql from "./review-sql.js";

interface FactActivity {
  /** The event's id: the console's "Older" pages go on below it. */
  id: number;
  kind: "created" | "updated" | "confirmed" | "deprecated";
  scope: string;
  name: string;
  version: number;
  actor: string;
  at: string;
  reason: string | null;
}

interface RecentFactEvents {
  /** Newest first; with an actor, only events above `stop`. */
  events: FactActivity[];
  /** The read stopped at its bound (scanMax) before finding `limit` events by the actor: older ones may exist. */
  scanCut: boolean;
  /** When scanCut: read on below this event id (the highest at which a scope's walk stopped; kept events at or below it are left for that read). */
  stop: number | null;
  /** When scanCut: the time of the event at `stop`; what is left below it is older. */
  stopAt: string | null;
  /** As many events as asked for came back: older ones may exist below the last. */
  full: boolean;
}

/**
 * The newest events in the caller's readable scopes, each scope read through
 * its own index (am_recent_page), so the cost follows what the caller may read and
 * `limit`, not what others wrote elsewhere. With an actor, at most `scanMax`
 * events of all readable scopes together are looked through (LIST_SCAN_MAX).
 * `before` (an event id) reads older events only.
 */
export async function recentFactEvents(
  db: Queryable,
  caller: Caller,
  options: { actor?: string | undefined; limit: number; scanMax?: number | undefined; before?: number | null | undefined },
): Promise<RecentFactEvents> {
  const readable = readableScopes(caller);
  const rows = (
    await db.query<{ kept: boolean; stop: string | null; stop_at: Date | null; id: string; kind: FactActivity["kind"]; scope: string; name: string; version: number; actor: string; at: Date; reason: string | null }>(
      reviewSql.RECENT_FACT_EVENTS,
      [readable.all, readable.scopes, options.actor ?? null, options.limit, options.scanMax ?? LIST_SCAN_MAX, options.before ?? null],
    )
  ).rows;
  const stop = rows[0]?.stop == null ? null : Number(rows[0].stop);
  const kept = rows.filter((r) => r.kept);
  return {
    events: kept
      .filter((r) => stop === null || Number(r.id) > stop)
      .map((r) => ({ id: Number(r.id), kind: r.kind, scope: r.scope, name: r.name, version: r.version, actor: r.actor, at: isoTime(r.at), reason: r.reason })),
    scanCut: stop !== null,
    stop,
    stopAt: rows[0]?.stop_at ? isoTime(rows[0].stop_at) : null,
    full: kept.length >= options.limit,
  };
}
