// A ledger event as stored, and the hash that chains it to the one before.
import { createHash } from "node:crypto";

// "voided": an operator (a human agent) voided the key's record or claim; the key is open again.
export const EVENT_KINDS = ["claimed", "renewed", "released", "taken_over", "executed", "voided"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface LedgerEvent {
  seq: number;
  kind: EventKind;
  action: string;
  target: string;
  actorId: number;
  actor: string;
  at: Date;
  evidence: string | null;
  note: string | null;
  reason: string | null;
  claimExpiresAt: Date | null;
  prevHash: string;
  hash: string;
  /** The reference of the claim the event belongs to (src/ledger/claim-id.ts); null for events before claim ids. */
  claimRef: string | null;
}

/** The prev_hash of the first event. */
export const GENESIS_HASH = "0".repeat(64);

// Bump the tag if the field list ever changes, so old and new rows cannot be confused:
// v2 adds the claim's reference at the end; an event without one hashes as v1 did.
const HASH_FORMAT = { v1: "agent-memory/ledger/v1", v2: "agent-memory/ledger/v2" };

/**
 * sha256 (hex) over a canonical serialization: a JSON array of every stored field
 * in a fixed order, timestamps as ISO strings at millisecond precision (the
 * precision they are stored at), ending with the previous event's hash and,
 * for an event of a claim with a reference, that reference. The actor is
 * hashed by name, not by database id, so a chain exported from one database
 * verifies unchanged after an import into another. am_ledger_event_hash
 * computes the same bytes.
 */
export function eventHash(event: Omit<LedgerEvent, "hash" | "actorId">): string {
  const canonical = JSON.stringify([
    event.claimRef === null ? HASH_FORMAT.v1 : HASH_FORMAT.v2,
    event.seq,
    event.kind,
    event.action,
    event.target,
    event.actor,
    event.at.toISOString(),
    event.evidence,
    event.note,
    event.reason,
    event.claimExpiresAt ? event.claimExpiresAt.toISOString() : null,
    event.prevHash,
    ...(event.claimRef === null ? [] : [event.claimRef]),
  ]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/** The database row, as both drivers return it. */
export interface EventRow {
  seq: number;
  kind: EventKind;
  action: string;
  target: string;
  actor_id: number;
  actor: string;
  at: Date;
  evidence: string | null;
  note: string | null;
  reason: string | null;
  claim_expires_at: Date | null;
  prev_hash: string;
  hash: string;
  claim_ref: string | null;
}

export const EVENT_COLUMNS = `e.seq, e.kind, e.action, e.target, e.actor_id, e.actor, e.at, e.evidence, e.note, e.reason, e.claim_expires_at, e.prev_hash, e.hash, e.claim_ref`;

export function toEvent(r: EventRow): LedgerEvent {
  return {
    seq: Number(r.seq),
    kind: r.kind,
    action: r.action,
    target: r.target,
    actorId: Number(r.actor_id),
    actor: r.actor,
    at: r.at,
    evidence: r.evidence,
    note: r.note,
    reason: r.reason,
    claimExpiresAt: r.claim_expires_at,
    prevHash: r.prev_hash,
    hash: r.hash,
    claimRef: r.claim_ref,
  };
}

/** One JSON Lines record of `ledger export`: every hashed field and the hashes (not the database's agent id). */
export function eventJson(e: LedgerEvent) {
  return {
    seq: e.seq,
    kind: e.kind,
    action: e.action,
    target: e.target,
    actor: e.actor,
    at: e.at.toISOString(),
    evidence: e.evidence,
    note: e.note,
    reason: e.reason,
    claimExpiresAt: e.claimExpiresAt ? e.claimExpiresAt.toISOString() : null,
    prevHash: e.prevHash,
    hash: e.hash,
    // Only present when the event has one: an export of a ledger without claim ids is unchanged.
    ...(e.claimRef === null ? {} : { claimRef: e.claimRef }),
  };
}
