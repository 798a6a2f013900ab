// Reading the ledger: a page of events, newest first, within a scan bound per
// call (LIST_SCAN_MAX), and the claims held right now.
import * as z from "zod/v4";
import type { Queryable } from "../db/core/database.js";
import { LIST_SCAN_MAX } from "../limits.js";
import { decodeCursor, encodeCursor } from "../paging.js";
import type { Claim } from "./chain.js";
import { type EventKind, type EventRow, type LedgerEvent, toEvent } from "./event.js";
import * as sql from "./sql.js";
import { normalizeAction, normalizeLimit, normalizeTarget, parseSince } from "./validate.js";

export interface ListFilters {
  action?: string;
  target?: string;
  actor?: string;
  kind?: EventKind;
  since?: string;
  limit?: number;
  cursor?: string;
}

export interface ListResult {
  events: LedgerEvent[];
  nextCursor: string | null;
  /** True when the page stopped at the call's scan bound (LIST_SCAN_MAX), not at the end of the ledger: more may follow. */
  scanCut: boolean;
  /** Where the next page goes on: below this event seq (the cursor's position), or null at the end. */
  nextSeq: number | null;
  /** When scanCut: the time of the event the scan stopped at; what is left is older. */
  stopAt: Date | null;
}

const Cursor = z.object({ seq: z.number().int().positive() });

/** A listLedger cursor for the events older than `seq` (the console's activity feed keeps positions as numbers). */
export function ledgerCursorBelow(seq: number): string {
  return encodeCursor({ seq });
}

export async function listLedger(db: Queryable, filters: ListFilters, options: { scanMax?: number | undefined } = {}): Promise<ListResult> {
  const scanMax = options.scanMax ?? LIST_SCAN_MAX;
  const action = filters.action === undefined ? null : normalizeAction(filters.action);
  const target = filters.target === undefined ? null : normalizeTarget(filters.target);
  const actor = filters.actor === undefined ? null : filters.actor.trim();
  const since = parseSince(filters.since);
  const limit = normalizeLimit(filters.limit);
  const after = decodeCursor(filters.cursor, Cursor);
  // One row more than asked tells whether another page exists.
  const rows = (
    await db.query<EventRow & { scan_seq: string | number; kept: boolean; last: boolean }>(sql.LIST_EVENTS, [
      action,
      target,
      actor,
      since?.toISOString() ?? null,
      filters.kind ?? null,
      after?.seq ?? null,
      scanMax,
      limit + 1,
    ])
  ).rows;
  const kept = rows.filter((r) => r.kept);
  const events = kept.slice(0, limit).map(toEvent);
  const last = events[events.length - 1];
  if (kept.length > limit && last) return { events, nextCursor: encodeCursor({ seq: last.seq }), scanCut: false, nextSeq: last.seq, stopAt: null };
  // The scan read all it may before the page was full: the next call goes on after the last event it read.
  const stoppedAt = rows.find((r) => r.last);
  if (!stoppedAt) return { events, nextCursor: null, scanCut: false, nextSeq: null, stopAt: null };
  const seq = Number(stoppedAt.scan_seq);
  return { events, nextCursor: encodeCursor({ seq }), scanCut: true, nextSeq: seq, stopAt: stoppedAt.at };
}

/** Claims held right now (expired ones are free to take), soonest expiry first. */
export async function listOpenClaims(db: Queryable, limit: number): Promise<Claim[]> {
  const rows = (
    await db.query<{ action: string; target: string; holder_id: number; holder: string; claimed_at: Date; expires_at: Date; claim_ref: string | null; id_required: boolean }>(
      sql.OPEN_CLAIMS,
      [limit],
    )
  ).rows;
  return rows.map((r) => ({
    action: r.action,
    target: r.target,
    holderId: Number(r.holder_id),
    holder: r.holder,
    claimedAt: r.claimed_at,
    expiresAt: r.expires_at,
    ref: r.claim_ref,
    idRequired: r.id_required,
  }));
}
