// Audit: walk the whole chain in seq order, one batch at a time (keyset on seq,
// never everything in memory), to verify its hashes or to export it.
import type { Queryable } from "../db/core/database.js";
import { eventHash, type EventRow, GENESIS_HASH, type LedgerEvent, toEvent } from "./event.js";
import * as sql from "./sql.js";

const AUDIT_BATCH = 1000;

interface Head {
  lastSeq: number;
  lastHash: string;
}

async function readHead(db: Queryable): Promise<Head> {
  const row = (await db.query<{ last_seq: number; last_hash: string }>(sql.READ_HEAD)).rows[0];
  if (!row) throw new Error("The ledger chain head row is missing: the ledger tables have been tampered with.");
  return { lastSeq: Number(row.last_seq), lastHash: row.last_hash };
}

/**
 * Events 1..head in order. Reading the head first bounds the walk: every event up
 * to it was committed with (or before) that head, and later writers only append.
 */
async function* eventsUpTo(db: Queryable, lastSeq: number, batch: number): AsyncGenerator<LedgerEvent> {
  let after = 0;
  for (;;) {
    const rows = (await db.query<EventRow>(sql.EVENTS_AFTER, [after, lastSeq, batch])).rows;
    for (const row of rows) yield toEvent(row);
    if (rows.length < batch) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

export interface VerifyReport {
  ok: boolean;
  /** Events checked (all of them when ok). */
  rows: number;
  lastSeq: number;
  lastHash: string;
  /** The first broken link, when not ok. */
  broken?: { seq: number; problem: string };
}

export async function verifyLedger(db: Queryable, batch = AUDIT_BATCH): Promise<VerifyReport> {
  const head = await readHead(db);
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  const fail = (seq: number, problem: string): VerifyReport => ({
    ok: false,
    rows: expectedSeq - 1,
    lastSeq: head.lastSeq,
    lastHash: head.lastHash,
    broken: { seq, problem },
  });
  for await (const event of eventsUpTo(db, head.lastSeq, batch)) {
    if (event.seq !== expectedSeq) {
      return fail(expectedSeq, `event #${expectedSeq} is missing (the next stored event is #${event.seq}): rows were deleted`);
    }
    if (event.prevHash !== prevHash) {
      return fail(event.seq, `event #${event.seq} does not link to the event before it (prev_hash ${event.prevHash} ≠ ${prevHash})`);
    }
    const { hash, ...content } = event;
    if (eventHash(content) !== hash) {
      return fail(event.seq, `event #${event.seq} does not match its hash: its content was changed after it was written`);
    }
    prevHash = hash;
    expectedSeq++;
  }
  const count = expectedSeq - 1;
  if (count !== head.lastSeq) {
    return fail(count + 1, `events #${count + 1} to #${head.lastSeq} are missing: the chain head says the last event is #${head.lastSeq}`);
  }
  if (prevHash !== head.lastHash) {
    return fail(head.lastSeq, `the chain head's hash ${head.lastHash} does not match event #${head.lastSeq} (${prevHash})`);
  }
  const beyond = (await db.query<{ n: number }>(sql.EVENTS_BEYOND_HEAD)).rows[0]?.n ?? 0;
  if (beyond > 0) {
    return fail(head.lastSeq + 1, `${beyond} event(s) after the chain head were inserted without moving it (not written by agent-memory)`);
  }
  return { ok: true, rows: count, lastSeq: head.lastSeq, lastHash: head.lastHash };
}

interface ExportSummary {
  rows: number;
  lastSeq: number;
  lastHash: string;
}

/** Streams every event, in seq order, to `write` (which may wait, for backpressure). */
export async function exportLedger(db: Queryable, write: (event: LedgerEvent) => Promise<void> | void, batch = AUDIT_BATCH): Promise<ExportSummary> {
  const head = await readHead(db);
  let rows = 0;
  let last: LedgerEvent | undefined;
  for await (const event of eventsUpTo(db, head.lastSeq, batch)) {
    await write(event);
    rows++;
    last = event;
  }
  return { rows, lastSeq: last?.seq ?? 0, lastHash: last?.hash ?? GENESIS_HASH };
}
