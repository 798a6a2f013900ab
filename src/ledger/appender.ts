// Group commit for ledger appends. Every append holds the chain head until its
// commit is flushed to disk (a few milliseconds here, bench/README.md "Ledger"),
// and no other append, from this process or any replica, can run meanwhile. So
// appends are sent one call at a time per database handle, and the ones that
// arrive while a call is in flight go together in the next call: one head lock,
// one commit, one flush for all of them. Nothing waits for a batch to fill: an
// append that finds no call in flight is sent at once. Each append is still
// decided under the lock on its own (am_ledger_append), fails on its own,
// and each caller gets its own answer only after the commit.
import type { Queryable } from "../db/core/database.js";
import { isConnectionError, pgCode, PgCode } from "../db/core/errors.js";
import { prepared } from "./prepared.js";
import * as sql from "./sql.js";

/** One write's event and the state it was decided on (see am_ledger_append). */
export interface AppendRequest {
  kind: string;
  action: string;
  target: string;
  actorId: number;
  actor: string;
  evidence: string | null;
  note: string | null;
  reason: string | null;
  ttlSeconds: number | null;
  claim: "set" | "renew" | "drop" | "keep";
  seenRecordSeq: number | null;
  seenClaim: string | null;
  maxOpenClaims: number | null;
  /** An imported event's own time and claim expiry (null: the clock, and ttlSeconds). */
  at: Date | null;
  claimExpiresAt: Date | null;
  /** The reference of the claim the event belongs to (for 'set', the new claim's); null: none. */
  claimRef: string | null;
  /** For 'set': the new claim is finished with its id alone. */
  idRequired: boolean;
}

/** What the append wrote: the event's number, time and hash, and the claim's times. */
export interface Appended {
  seq: number;
  at: Date;
  hash: string;
  claimedAt: Date | null;
  claimExpiresAt: Date | null;
}

interface AppendRow {
  idx: number;
  appended: boolean;
  ev_seq: number | null;
  ev_at: Date | null;
  ev_hash: string | null;
  ev_claimed_at: Date | null;
  ev_claim_expires_at: Date | null;
}

// A bound on one statement's size and on how long the head is held by one call.
const MAX_BATCH = 64;

/**
 * True when a failed call was refused by the database for what one of its events
 * does (a constraint, a data exception): the call was rolled back as a whole and
 * nothing of it was written. Not for a lost connection (the commit may have
 * happened), a cancelled statement or a head lock that timed out: those fail
 * every event of the call, as they did when each event ran in a subtransaction.
 */
function isEventError(error: unknown): boolean {
  const code = pgCode(error);
  return code !== undefined && !isConnectionError(error) && code !== PgCode.QUERY_CANCELED && code !== PgCode.LOCK_NOT_AVAILABLE;
}

/**
 * One call: for each request, what was appended, null (its key changed: nothing
 * written), or its own error. Needs an autocommitting handle for more than one
 * request (the pool; the fallback's transaction sends one).
 */
export async function appendMany(db: Queryable, reqs: AppendRequest[]): Promise<Array<Appended | null | Error>> {
  const col = <K extends keyof AppendRequest>(k: K) => reqs.map((r) => r[k]);
  const times = (k: "at" | "claimExpiresAt") => reqs.map((r) => r[k]?.toISOString() ?? null);
  const params = [
    col("kind"), col("action"), col("target"), col("actorId"), col("actor"), col("evidence"), col("note"), col("reason"),
    col("ttlSeconds"), col("claim"), col("seenRecordSeq"), col("seenClaim"), col("maxOpenClaims"), times("at"), times("claimExpiresAt"),
    col("claimRef"), col("idRequired"),
  ];
  let rows: AppendRow[];
  try {
    // Prepared: the statement is one function call, so its one plan is always right.
    rows = (await db.query<AppendRow>(sql.APPEND_IF_UNCHANGED, params, prepared("append"))).rows;
  } catch (error) {
    if (!isEventError(error)) throw error;
    if (reqs.length === 1) return [error as Error];
    // One event failed and rolled the whole call back (am_ledger_append has no
    // subtransaction per event): send each event again in a call of its
    // own, in order, so that the failing one fails alone and the others are appended.
    const out: Array<Appended | null | Error> = [];
    for (const req of reqs) out.push(...(await appendMany(db, [req])));
    return out;
  }
  const out: Array<Appended | null | Error> = reqs.map(() => new Error("ledger append returned no row for this event"));
  for (const r of rows) {
    out[Number(r.idx) - 1] = r.appended
      ? { seq: Number(r.ev_seq), at: r.ev_at!, hash: r.ev_hash!, claimedAt: r.ev_claimed_at, claimExpiresAt: r.ev_claim_expires_at }
      : null;
  }
  return out;
}

interface Pending {
  req: AppendRequest;
  resolve(result: Appended | null): void;
  reject(error: unknown): void;
}

class Appender {
  private queue: Pending[] = [];
  private sending = false;

  constructor(private readonly db: Queryable) {}

  append(req: AppendRequest): Promise<Appended | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ req, resolve, reject });
      if (!this.sending) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          const results = await appendMany(this.db, batch.map((p) => p.req));
          batch.forEach((p, i) => {
            const r = results[i];
            if (r instanceof Error) p.reject(r);
            else p.resolve(r ?? null);
          });
        } catch (error) {
          // The whole call failed (lock timeout, lost connection): nothing of it was written.
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.sending = false;
    }
  }
}

// One appender per database handle (a pool, or the embedded database), created on
// first use and dropped with the handle: tests that open their own handles get their own.
const appenders = new WeakMap<Queryable, Appender>();

/** Appends through the handle's appender, together with whatever else is waiting. */
export function appendGrouped(db: Queryable, req: AppendRequest): Promise<Appended | null> {
  let appender = appenders.get(db);
  if (!appender) {
    appender = new Appender(db);
    appenders.set(db, appender);
  }
  return appender.append(req);
}
