// Recent graph writes for the console's activity feed, readable scopes only.
import { type Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { LIST_SCAN_MAX_DEFAULT } from "../limits.js";
import * as sql from "./activity-sql.js";

export interface GraphActivity {
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

export interface RecentGraphWrites {
  writes: GraphActivity[];
  /** A read stopped at its bound (scanMax) before finding `limit` writes by the actor: older ones may exist. */
  scanCut: boolean;
}

/**
 * The newest writes in the caller's readable scopes, each scope of each table
 * read through its own index (sql/000034), so the cost follows what the caller
 * may read and `limit`, not what others wrote elsewhere. With an actor, at most
 * `scanMax` rows of each table are looked through (LIST_SCAN_MAX).
 */
export async function recentGraphWrites(
  db: Queryable,
  caller: Caller,
  options: { actor?: string | undefined; limit: number; scanMax?: number | undefined },
): Promise<RecentGraphWrites> {
  const readable = readableScopes(caller);
  const rows = (
    await db.query<GraphActivity & { kept: boolean; cut: boolean }>(sql.RECENT_GRAPH_WRITES, [
      readable.all,
      readable.scopes,
      options.actor ?? null,
      options.limit,
      options.scanMax ?? LIST_SCAN_MAX_DEFAULT,
    ])
  ).rows;
  return { writes: rows.filter((r) => r.kept).map(({ kept: _kept, cut: _cut, ...w }) => w), scanCut: rows.some((r) => r.cut) };
}
