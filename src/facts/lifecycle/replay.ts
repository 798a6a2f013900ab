// Writing a fact's history as it happened elsewhere (snapshot import): the same
// statements memory_store and memory_promote use, at each event's original time
// and author. The caller holds the transaction and decides what to append.
import type { Queryable } from "../../db/database.js";
import { factWordsParams } from "../cjk-words.js";
import type { FactStatus, FactType, PromotionTarget } from "../rules.js";
import * as sql from "../sql.js";

export interface FactContent {
  description: string;
  type: FactType;
  body: string;
}

/** Locks the fact for the rest of the transaction; null when it does not exist. */
export async function lockFactInScope(tx: Queryable, name: string, scope: string): Promise<number | null> {
  const row = (await tx.query<{ id: number }>(sql.LOCK_FACT_IN_SCOPE, [name, scope])).rows[0];
  return row ? Number(row.id) : null;
}

/** Creates version 1 as a draft; null when a fact of that name appeared meanwhile. */
export async function replayCreate(tx: Queryable, scope: string, name: string, c: FactContent, authorId: number, at: string): Promise<number | null> {
  const row = (await tx.query<{ id: number }>(sql.CREATE_FACT, [scope, name, c.description, c.type, c.body, authorId, at, ...factWordsParams(name, c.description, c.body), null])).rows[0];
  return row ? Number(row.id) : null;
}

/** Appends the next version; answers the version number written. */
export async function replayUpdate(tx: Queryable, factId: number, name: string, c: FactContent, authorId: number, from: FactStatus | null, at: string): Promise<number | undefined> {
  const row = (await tx.query<{ version: number }>(sql.UPDATE_FACT, [factId, c.description, c.type, c.body, authorId, from, at, ...factWordsParams(name, c.description, c.body)])).rows[0];
  return row?.version;
}

export async function replayPromotion(tx: Queryable, factId: number, to: PromotionTarget, authorId: number, reason: string | null, from: FactStatus | null, at: string): Promise<void> {
  await tx.query(sql.PROMOTE_FACT, [factId, to, authorId, reason, from, at]);
}
