// A key's state, which every write decides on, and the two steps an import of
// history takes inside its transaction besides (agents' writes: write.ts):
//   1. lockChainHead, once: nothing changes the ledger until the import commits;
//   2. per event: readKey and eventPresent, decide, then appendImported, which
//      appends through am_ledger_append as every write does (one place hashes
//      the chain), with the event's own time.
import type { Queryable } from "../db/core/database.js";
import { appendMany } from "./appender.js";
import type { EventKind } from "./event.js";
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
  /** Its reference, the SHA-256 of its id (claim-id.ts); null for a claim granted before claim ids. */
  ref: string | null;
  /** Recording or releasing it needs its id: more than one worker of its agent asked for the key. */
  idRequired: boolean;
}

export interface KeyState {
  /** The database clock, millisecond precision: the time of the event about to be written. */
  now: Date;
  executed: ExecutedRecord | null;
  claim: Claim | null;
  /** The claim as am_ledger_claim_version prints it (null: no claim); compared under the lock. */
  claimVersion: string | null;
}

/** The key-state columns of READ_KEY and READ_KEY_FOR_AGENT. */
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
  claim_ref: string | null;
  claim_id_required: boolean | null;
  claim_version: string | null;
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
        : {
            ...key,
            holderId: Number(r.claim_holder_id),
            holder: r.claim_holder!,
            claimedAt: r.claim_claimed_at!,
            expiresAt: r.claim_expires_at!,
            ref: r.claim_ref,
            idRequired: r.claim_id_required === true,
          },
    claimVersion: r.claim_version,
  };
}

export function claimExpired(claim: Claim, now: Date): boolean {
  return claim.expiresAt.getTime() <= now.getTime();
}

/** Locks the chain head until the caller's transaction ends (an import of history). */
export async function lockChainHead(tx: Queryable): Promise<void> {
  await tx.query(sql.LOCK_HEAD);
}

export async function readKey(db: Queryable, key: LedgerKey): Promise<KeyState> {
  const row = (await db.query<KeyStateRow>(sql.READ_KEY, [key.action, key.target])).rows[0]!;
  // Only the key's two fields: `key` may be a whole event (an import's line).
  return toKeyState({ action: key.action, target: key.target }, row);
}

/** An event as an import of history names it: the same kind, key, actor and time is the same event. */
interface PastEvent extends LedgerKey {
  kind: EventKind;
  actor: string;
  at: Date;
}

/** Whether the chain already holds this exact event (an import skips it). */
export async function eventPresent(tx: Queryable, e: PastEvent): Promise<boolean> {
  const row = (await tx.query<{ present: boolean }>(sql.EVENT_PRESENT, [e.kind, e.action, e.target, e.actor, e.at.toISOString()])).rows[0];
  return row?.present ?? false;
}

/** An event of an imported history: its own time, actor, claim expiry and claim reference. */
interface ImportedEvent extends PastEvent {
  evidence: string | null;
  note: string | null;
  reason: string | null;
  claimExpiresAt: Date | null;
  claimRef: string | null;
}

/**
 * Appends an imported event after the key's `state`, read under the head lock
 * (lockChainHead). `claim` says what happens to the key's claim: set (the actor
 * holds it from the event's time), renew (new expiry), drop, or keep (an
 * imported historical claim must not displace a live one).
 */
export async function appendImported(
  tx: Queryable,
  state: KeyState,
  event: ImportedEvent,
  actor: Actor,
  claim: "set" | "renew" | "drop" | "keep",
): Promise<void> {
  const [result] = await appendMany(tx, [
    {
      kind: event.kind,
      action: event.action,
      target: event.target,
      actorId: actor.agentId,
      actor: actor.name,
      evidence: event.evidence,
      note: event.note,
      reason: event.reason,
      ttlSeconds: null,
      claim,
      seenRecordSeq: state.executed?.seq ?? null,
      seenClaim: state.claimVersion,
      maxOpenClaims: null,
      at: event.at,
      claimExpiresAt: event.claimExpiresAt,
      claimRef: event.claimRef,
      idRequired: false,
    },
  ]);
  if (result instanceof Error) throw result;
  // Under the head lock nothing can change between the read and the append.
  if (!result) throw new Error("ledger key changed while the chain head was locked");
}
