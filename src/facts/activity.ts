// What happened to facts lately, for the console's activity feed: the same
// events memory_get shows in a fact's history, across facts, readable scopes only.
import { type Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { isoTime } from "./model.js";
import * as reviewSql from "./review-sql.js";
import * as sql from "./sql.js";

export interface FactActivity {
  kind: "created" | "updated" | "confirmed" | "deprecated";
  scope: string;
  name: string;
  version: number;
  actor: string;
  at: string;
  reason: string | null;
}

export async function recentFactEvents(db: Queryable, caller: Caller, options: { actor?: string | undefined; limit: number }): Promise<FactActivity[]> {
  const readable = readableScopes(caller);
  const rows = (
    await db.query<{ kind: FactActivity["kind"]; scope: string; name: string; version: number; actor: string; at: Date; reason: string | null }>(
      reviewSql.RECENT_FACT_EVENTS,
      [readable.all, readable.scopes, options.actor ?? null, options.limit],
    )
  ).rows;
  return rows.map((r) => ({ kind: r.kind, scope: r.scope, name: r.name, version: r.version, actor: r.actor, at: isoTime(r.at), reason: r.reason }));
}
