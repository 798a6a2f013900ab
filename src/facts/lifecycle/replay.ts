// Writing a fact's history as it happened elsewhere (snapshot import): the same
// statements memory_store and memory_promote use, at each event's original time
// and author. The caller holds the transaction and decides what to append.
import type { Queryable } from "../../db/core/database.js";
import { factWordsParams } from "../cjk-words.js";
import type { FactEventKind, FactStatus, FactType, PromotionTarget } from "../rules.js";
import * as replaySql from "./replay-sql.js";
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

/** A fact's history as an import writes it: checked against the lifecycle by the caller, as the database's triggers would. */
export interface HistoryToInsert {
  scope: string;
  name: string;
  /** contents[v - 1] is version v. */
  contents: FactContent[];
  /** In order; the first is the creation of version 1. */
  events: Array<{ kind: FactEventKind; version: number; actorId: number; at: string; from: FactStatus | null; to: FactStatus; reason: string | null }>;
}

/**
 * Inserts new facts, each with its whole history, in two statements for all of
 * them: the row as the last event leaves it (the state the replay functions
 * above would reach, event by event), every version, every event, and the
 * recall vocabulary of every version. Facts whose name is taken in their scope
 * (or comes twice: the first wins) are left out. Answers the indexes of the
 * facts inserted.
 */
export async function insertFactHistories(tx: Queryable, facts: readonly HistoryToInsert[]): Promise<Set<number>> {
  if (facts.length === 0) return new Set();
  const rows = facts.map((f) => {
    const writes = f.events.filter((e) => e.kind === "created" || e.kind === "updated");
    const wrote = writes[writes.length - 1]!;
    // A new version starts unreviewed: only reviews after the last write show on the row.
    const review = f.events.slice(f.events.lastIndexOf(wrote) + 1).at(-1);
    const current = f.contents[f.contents.length - 1]!;
    const [head, body, rules] = factWordsParams(f.name, current.description, current.body);
    return { f, wrote, review, current, head, body, rules, versionTimes: writes.map((e) => e.at) };
  });
  const column = <T>(pick: (r: (typeof rows)[number]) => T) => rows.map(pick);
  const versions = rows.flatMap((r, i) => r.f.contents.map((c, v) => ({ fact: i + 1, version: v + 1, c, authorId: r.f.events.find((e) => e.version === v + 1 && e.kind !== "confirmed" && e.kind !== "deprecated")!.actorId, at: r.versionTimes[v]! })));
  const events = rows.flatMap((r, i) => r.f.events.map((e) => ({ fact: i + 1, e })));
  const inserted = await tx.query<{ ord: number }>(replaySql.INSERT_FACT_HISTORIES, [
    column((r) => r.f.scope),
    column((r) => r.f.name),
    column((r) => r.current.description),
    column((r) => r.current.type),
    column((r) => r.current.body),
    column((r) => r.f.events[r.f.events.length - 1]!.to),
    column((r) => r.f.contents.length),
    column((r) => r.wrote.actorId),
    column((r) => r.f.events[0]!.at),
    column((r) => r.wrote.at),
    column((r) => r.review?.actorId ?? null),
    column((r) => r.review?.at ?? null),
    column((r) => r.review?.reason ?? null),
    column((r) => JSON.stringify(r.head)),
    column((r) => JSON.stringify(r.body)),
    rows[0]!.rules,
    versions.map((v) => v.fact),
    versions.map((v) => v.version),
    versions.map((v) => v.c.description),
    versions.map((v) => v.c.type),
    versions.map((v) => v.c.body),
    versions.map((v) => v.authorId),
    versions.map((v) => v.at),
    events.map((x) => x.fact),
    events.map((x) => x.e.version),
    events.map((x) => x.e.kind),
    events.map((x) => x.e.actorId),
    events.map((x) => x.e.at),
    events.map((x) => x.e.from),
    events.map((x) => x.e.to),
    events.map((x) => x.e.reason),
  ]);
  const done = new Set(inserted.rows.map((r) => r.ord - 1));
  const earlier = rows.flatMap((r, i) => (done.has(i) ? r.f.contents.slice(0, -1).map((c) => ({ scope: r.f.scope, name: r.f.name, c })) : []));
  if (earlier.length > 0) {
    await tx.query(replaySql.ADD_EARLIER_WORDS, [earlier.map((e) => e.scope), earlier.map((e) => e.name), earlier.map((e) => e.c.description), earlier.map((e) => e.c.body)]);
  }
  return done;
}
