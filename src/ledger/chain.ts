// The key state every write decides on, and the append used by imports of history
// (snapshots), inside one transaction:
//   1. lockKey: lock the chain head and read the key's state under that lock;
//   2. eventPresent: skip an event the chain already holds;
//   3. appendEvent: insert the next event (hash computed here) and move the head.
// Agents' writes take a shorter path that holds the head for one statement (write.ts).
import type { Queryable } from "../db/database.js";
import { eventHash, type EventKind, type LedgerEvent } from "./event.js";
import * as sql from "./sql.js";
import type { LedgerKey } from "./validate.js";

export interface Actor {
  agentId: number;
  name: string;
}

/** The executed record of a key: the answer to "has this already happened?". */
export interface ExecutedRecord {
  seq: number;
  action: string;
  target: string;
  actorId: number;
  actor: string;
  at: Date;
  evidence: string;
  note: string | null;
  hash: string;
}

export interface Claim {
  action: string;
  target: string;
  holderId: number;
  holder: string;
  claimedAt: Date;
  expiresAt: Date;
}

export interface KeyState {
  /** The database clock, millisecond precision: the time of the event about to be written. */
  now: Date;
  executed: ExecutedRecord | null;
  claim: Claim | null;
}

export interface LockedKeyState extends KeyState {
  headSeq: number;
  headHash: string;
}

/** The columns READ_KEY and am_ledger_lock_head have in common. */
export interface KeyStateRow {
  now_at: Date;
  exec_seq: number | null;
  exec_actor_id: number | null;
  exec_actor: string | null;
  exec_at: Date | null;
  exec_evidence: string | null;
  exec_note: string | null;
  exec_hash: string | null;
  claim_holder_id: number | null;
  claim_holder: string | null;
  claim_claimed_at: Date | null;
  claim_expires_at: Date | null;
}

export function toKeyState(key: LedgerKey, r: KeyStateRow): KeyState {
  return {
    now: r.now_at,
    executed:
      r.exec_seq === null
        ? null
        : {
            seq: Number(r.exec_seq),
            ...key,
            actorId: Number(r.exec_actor_id),
            actor: r.exec_actor!,
            at: r.exec_at!,
            evidence: r.exec_evidence!,
            note: r.exec_note,
            hash: r.exec_hash!,
          },
    claim:
      r.claim_holder_id === null
        ? null
        : { ...key, holderId: Number(r.claim_holder_id), holder: r.claim_holder!, claimedAt: r.claim_claimed_at!, expiresAt: r.claim_expires_at! },
  };
}

export function claimExpired(claim: Claim, now: Date): boolean {
  return claim.expiresAt.getTime() <= now.getTime();
}

export async function lockKey(tx: Queryable, key: LedgerKey): Promise<LockedKeyState> {
  const row = (await tx.query<KeyStateRow & { head_seq: number; head_hash: string }>(sql.LOCK_HEAD_AND_READ_KEY, [key.action, key.target])).rows[0];
  if (!row) throw new Error("ledger chain head row is missing");
  return { ...toKeyState(key, row), headSeq: Number(row.head_seq), headHash: row.head_hash };
}

/** An event as an import of history names it: the same kind, key, actor and time is the same event. */
export interface PastEvent extends LedgerKey {
  kind: EventKind;
  actor: string;
  at: Date;
}

/** Whether the chain already holds this exact event (an import skips it). */
export async function eventPresent(tx: Queryable, e: PastEvent): Promise<boolean> {
  const row = (await tx.query<{ present: boolean }>(sql.EVENT_PRESENT, [e.kind, e.action, e.target, e.actor, e.at.toISOString()])).rows[0];
  return row?.present ?? false;
}

export interface NewEvent {
  kind: EventKind;
  evidence?: string | null;
  note?: string | null;
  reason?: string | null;
  claimExpiresAt?: Date | null;
}

/**
 * Appends the next event after `state`'s head. `claim` says what happens to the
 * key's claim row: "set" makes the actor the holder (claimed_at given), "drop"
 * deletes it (recorded or released), "keep" leaves it as it is (an imported
 * historical claim must not displace a live one).
 */
export async function appendEvent(
  tx: Queryable,
  state: LockedKeyState,
  key: LedgerKey,
  actor: Actor,
  event: NewEvent,
  claim: { set: Date } | "drop" | "keep",
): Promise<LedgerEvent> {
  const unhashed: Omit<LedgerEvent, "hash"> = {
    seq: state.headSeq + 1,
    kind: event.kind,
    action: key.action,
    target: key.target,
    actorId: actor.agentId,
    actor: actor.name,
    at: state.now,
    evidence: event.evidence ?? null,
    note: event.note ?? null,
    reason: event.reason ?? null,
    claimExpiresAt: event.claimExpiresAt ?? null,
    prevHash: state.headHash,
  };
  const appended: LedgerEvent = { ...unhashed, hash: eventHash(unhashed) };
  const params: unknown[] = [
    appended.seq,
    appended.kind,
    appended.action,
    appended.target,
    appended.actorId,
    appended.actor,
    appended.at.toISOString(),
    appended.evidence,
    appended.note,
    appended.reason,
    appended.claimExpiresAt?.toISOString() ?? null,
    appended.prevHash,
    appended.hash,
  ];
  if (claim === "drop") {
    await tx.query(sql.APPEND_AND_DROP_CLAIM, params);
  } else if (claim === "keep") {
    await tx.query(sql.APPEND_ONLY, params);
  } else {
    await tx.query(sql.APPEND_AND_SET_CLAIM, [...params, claim.set.toISOString()]);
  }
  return appended;
}
