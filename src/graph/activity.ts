// Recent graph writes for the console's activity feed, readable scopes only.
import { type Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import * as sql from "./read-sql.js";

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

export async function recentGraphWrites(db: Queryable, caller: Caller, options: { actor?: string | undefined; limit: number }): Promise<GraphActivity[]> {
  const readable = readableScopes(caller);
  return (await db.query<GraphActivity>(sql.RECENT_GRAPH_WRITES, [readable.all, readable.scopes, options.actor ?? null, options.limit])).rows;
}
