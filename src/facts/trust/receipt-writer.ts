// Recall receipts: which agent was served which fact version, when, and by which
// tool, resource or prompt. Never what it asked: no query text, no arguments.
//
// Recording costs a read nothing it waits for: a call adds its receipts to a
// queue in memory and answers; the queue is written to the primary in one
// statement per batch, every RECEIPT_FLUSH_MS or once RECEIPT_BATCH receipts
// wait, and on shutdown (close). Always the primary, also when the read ran on a
// replica (the writer holds the primary, not the call's database).
//
// Storage grows with distinct reads, not with calls: the first time an agent is
// served a fact version by a tool, its receipt is written with the next batch
// (whom a withdrawal reaches is never late by more); the same served again within
// RECEIPT_WINDOW_MS (src/limits.ts) is counted in memory and written as one row when the window
// ends (`served` says how many times), which starts the next window. An agent
// reading the same facts in a loop costs a row per fact per window.
//
// What a crash can lose: the receipts of at most the last RECEIPT_FLUSH_MS (a
// batch in flight is one statement: written whole or not at all), and the
// repeats counted in the current window. While the database refuses the
// batches, receipts wait up to RECEIPT_QUEUE_MAX; past that new ones are dropped
// and counted (agent_memory_receipts_dropped_total), never held against a read.
import { AsyncResource } from "node:async_hooks";
import type { Logger } from "pino";
import type { Receipts, ServedFact } from "../../app-deps.js";
import type { Queryable } from "../../db/core/database.js";

/** How long a receipt waits in memory at most before its batch is written (the window a crash can lose). */
export const RECEIPT_FLUSH_MS = 1000;
/** A batch is written at once when this many receipts wait. */
const RECEIPT_BATCH = 500;
/** Receipts kept in memory at most (while the database is away); past this, new ones are dropped and counted. */
const RECEIPT_QUEUE_MAX = 20_000;
/** Receipts whose repeats are counted in memory at most; past it a repeat is a receipt of its own. */
const RECEIPT_WINDOWS_MAX = 100_000;


interface Receipt extends ServedFact {
  /** The first time it was served in this batch (or window). */
  at: Date;
  agentId: number;
  via: string;
  served: number;
}

// One statement per batch: the receipts appended, and each (fact, reader)'s
// summary in fact_readers brought up to date. Facts are found by (scope, name)
// (facts_name_unique), so that no read query has to return its facts' ids.
const RECORD_RECEIPTS = `
  with batch as (
    select r.at, r.agent_id, f.id as fact_id, r.version, r.status, r.via, r.served
      from unnest($1::timestamptz[], $2::bigint[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::int[])
             as r (at, agent_id, scope, name, version, status, via, served)
      join facts f on f.scope = r.scope and f.name = r.name
      join agents a on a.id = r.agent_id
  ), appended as (
    insert into fact_receipts (at, agent_id, fact_id, version, status, via, served)
    select at, agent_id, fact_id, version, status, via, served from batch
    returning served
  ), readers as (
    insert into fact_readers (fact_id, agent_id, first_at, last_at, last_version, reads, versions)
    select fact_id, agent_id, min(at), max(at), (array_agg(version order by at desc))[1], sum(served), array_agg(distinct version order by version)
      from batch group by fact_id, agent_id
     -- In key order: batches of several service processes touch shared rows in one order, never each waiting on the other.
     order by fact_id, agent_id
    on conflict (fact_id, agent_id) do update
       set last_at = greatest(fact_readers.last_at, excluded.last_at),
           last_version = case when excluded.last_at >= fact_readers.last_at then excluded.last_version else fact_readers.last_version end,
           reads = fact_readers.reads + excluded.reads,
           versions = array(select distinct v from unnest(fact_readers.versions || excluded.versions) as v order by v)
    returning 1
  )
  select (select coalesce(sum(served), 0) from appended)::int as recorded`;

// Receipts, and readers not seen since, older than the retention; in bounded
// batches so that one prune never holds a long transaction.
const PRUNE_BATCH = 10_000;
const PRUNE_RECEIPTS = `
  delete from fact_receipts where id in (
    select id from fact_receipts where at < now() - make_interval(days => $1::int) order by at limit ${PRUNE_BATCH})`;
const PRUNE_READERS = `
  delete from fact_readers where (fact_id, agent_id) in (
    select fact_id, agent_id from fact_readers where last_at < now() - make_interval(days => $1::int) limit ${PRUNE_BATCH})`;

// A notice says when its agent read the fact: receipt data, kept no longer, delivered or not.
const PRUNE_NOTICES = `
  delete from fact_withdrawal_notices where (agent_id, event_id) in (
    select agent_id, event_id from fact_withdrawal_notices where read_at < now() - make_interval(days => $1::int) limit ${PRUNE_BATCH})`;

export interface ReceiptCounters {
  recorded(n: number): void;
  dropped(n: number): void;
}

/** A receipt written in its window: its repeats since, counted until the window ends. */
interface Window {
  until: number;
  repeats: Receipt | undefined;
}

export class ReceiptWriter implements Receipts {
  private queue: Receipt[] = [];
  /** The queued receipts by what makes them one (agent, fact, version, status, via). */
  private byKey = new Map<string, Receipt>();
  /** The receipts written within their window, by the same key. */
  private windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  // A batch is written in the context the writer was made in (the service's
  // start), not in that of the request whose receipt started or filled it: its
  // statement belongs to no request, nor to that request's trace.
  private readonly flushNow = AsyncResource.bind(() => void this.flush());
  private readonly flushSoon = AsyncResource.bind(() => {
    this.timer ??= setTimeout(() => void this.flush(), RECEIPT_FLUSH_MS).unref();
  });

  constructor(
    /** The primary: receipts are written there whatever database served the read. */
    private readonly primary: Queryable,
    /** False when RECEIPTS_RETENTION_DAYS is 0: nothing is recorded. */
    readonly enabled: boolean,
    private readonly counters: ReceiptCounters,
    private readonly logger: Logger,
    /** Repeats within this long are one row (RECEIPT_WINDOW_MS, src/limits.ts). */
    private readonly windowMs: number,
  ) {}

  /** Notes that `agentId` was served `facts` by `via` (a tool, resource or prompt name). Never waits. */
  record(agentId: number, via: string, facts: readonly ServedFact[]): void {
    if (!this.enabled || facts.length === 0 || this.closed) return;
    let at: Date | undefined;
    let dropped = 0;
    const now = Date.now();
    for (const f of facts) {
      const key = receiptKey(agentId, via, f);
      const queued = this.byKey.get(key);
      if (queued) {
        queued.served++;
        continue;
      }
      const window = this.windows.get(key);
      if (window && window.until > now) {
        if (window.repeats) window.repeats.served++;
        else window.repeats = { at: (at ??= new Date()), agentId, via, scope: f.scope, name: f.name, version: f.version, status: f.status, served: 1 };
        continue;
      }
      if (this.queue.length >= RECEIPT_QUEUE_MAX) {
        dropped++;
        continue;
      }
      const receipt = { at: (at ??= new Date()), agentId, via, scope: f.scope, name: f.name, version: f.version, status: f.status, served: 1 };
      this.queue.push(receipt);
      this.byKey.set(key, receipt);
      this.openWindow(key, now);
    }
    if (dropped > 0) this.counters.dropped(dropped);
    if (this.queue.length >= RECEIPT_BATCH) this.flushNow();
    else this.flushSoon();
  }

  /** Writes every receipt queued so far; resolves once they are in the database (or were given up on). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeQueued());
    return this.writing;
  }

  /** Writes what waits, the repeats counted so far included, and records nothing more (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.endWindows(Infinity);
    await this.flush();
    this.closed = true;
  }

  private openWindow(key: string, now: number): void {
    if (this.windows.size >= RECEIPT_WINDOWS_MAX) return;
    this.windows.set(key, { until: now + this.windowMs, repeats: undefined });
    // A tenth of a window apart: a window's repeats are written at most that late.
    this.sweeper ??= setInterval(this.sweep, Math.max(1, Math.floor(this.windowMs / 10))).unref();
  }

  private readonly sweep = AsyncResource.bind(() => {
    if (this.endWindows(Date.now()) > 0) this.flushSoon();
    if (this.windows.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  });

  /** Queues the repeats of every window ended by `now`; a window with repeats starts the next one. How many were queued. */
  private endWindows(now: number): number {
    let queued = 0;
    let dropped = 0;
    for (const [key, window] of this.windows) {
      if (window.until > now) continue;
      this.windows.delete(key);
      const repeats = window.repeats;
      if (!repeats) continue;
      if (this.queue.length >= RECEIPT_QUEUE_MAX) {
        dropped++;
        continue;
      }
      this.queue.push(repeats);
      queued++;
      if (now !== Infinity) this.windows.set(key, { until: now + this.windowMs, repeats: undefined });
    }
    if (dropped > 0) this.counters.dropped(dropped);
    return queued;
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, RECEIPT_BATCH);
      // Served again from now on is a new receipt: these are on their way.
      if (this.queue.length === 0) this.byKey.clear();
      else for (const r of batch) this.byKey.delete(receiptKey(r.agentId, r.via, r));
      try {
        const { rows } = await this.primary.query<{ recorded: number }>(RECORD_RECEIPTS, [
          batch.map((r) => r.at),
          batch.map((r) => r.agentId),
          batch.map((r) => r.scope),
          batch.map((r) => r.name),
          batch.map((r) => r.version),
          batch.map((r) => r.status),
          batch.map((r) => r.via),
          batch.map((r) => r.served),
        ]);
        this.counters.recorded(rows[0]?.recorded ?? 0);
      } catch (error) {
        // Kept for the next flush while there is room: a database that is away
        // for a moment loses no receipts; one away for long loses the newest.
        const room = RECEIPT_QUEUE_MAX - this.queue.length;
        if (room > 0) this.queue.unshift(...batch.slice(0, room));
        if (batch.length > room) this.counters.dropped(batch.length - Math.max(room, 0));
        this.logger.warn({ err: error, receipts: batch.length }, "writing recall receipts failed; they are tried again with the next batch");
        if (!this.closed) this.flushSoon();
        return;
      }
    }
  }
}

/** What makes two servings one receipt (names and scopes hold no line break). */
const receiptKey = (agentId: number, via: string, f: ServedFact): string => `${agentId}\n${via}\n${f.scope}\n${f.name}\n${f.version}\n${f.status}`;

/** Deletes receipts, readers not served the fact since, and notices of reads older than `retentionDays`; part of the service's hourly upkeep. */
export async function pruneReceipts(db: Queryable, retentionDays: number): Promise<{ receipts: number; readers: number; notices: number }> {
  const prune = async (statement: string) => {
    let deleted = 0;
    for (;;) {
      const n = (await db.query(statement, [retentionDays])).rowCount;
      deleted += n;
      if (n < PRUNE_BATCH) return deleted;
    }
  };
  return { receipts: await prune(PRUNE_RECEIPTS), readers: await prune(PRUNE_READERS), notices: await prune(PRUNE_NOTICES) };
}
