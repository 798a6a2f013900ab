// The ledger's rules. Every write is decided on the key's state and appended by
// one statement that locks the chain head and appends only if that state is still
// current (write.ts), so check-then-write is exact: of any number of agents or
// replicas racing on one (action, target), exactly one claim or record wins.
// Writes are permitted per action scope and claims are capped per agent
// (docs/ledger-permissions.md); the quota is checked again under the lock.
import { isHuman } from "../auth/scopes.js";
import type { Database, Queryable } from "../db/core/database.js";
import { pgCode, PgCode } from "../db/core/errors.js";
import { conflict, forbidden, notFound } from "../errors.js";
import { REFUSING_GUARD, type SecretGuard } from "../secrets/guard.js";
import { type Claim, claimExpired, type KeyState, readKey } from "./chain.js";
import { claimRef, newClaimId, normalizeClaimId } from "./claim-id.js";
import { claimRelation } from "./claim-rules.js";
import { claimFate, type ClaimFateRow, keyText, refusals } from "./format.js";
import * as sql from "./sql.js";
import {
  type LedgerKey,
  normalizeEvidence,
  normalizeKey,
  normalizeNote,
  normalizeReason,
  normalizeTtl,
} from "./validate.js";
import { type Decision, writeLedger } from "./write.js";

import type { Actor, ExecutedRecord } from "./chain.js";

export type { Actor, Claim, ExecutedRecord } from "./chain.js";

/** Who may write which action, and how many claims one agent may hold (from config). */
export interface LedgerPolicy {
  defaultScope: string;
  maxOpenClaimsPerAgent: number;
}

const DEFAULT_LEDGER_POLICY: LedgerPolicy = { defaultScope: "shared", maxOpenClaimsPerAgent: 100 };

type CheckStatus = "EXECUTED" | "CLAIMED" | "NOT_EXECUTED";

interface CheckResult extends KeyState {
  key: LedgerKey;
  status: CheckStatus;
}

export async function checkLedger(db: Queryable, input: { action: string; target: string }): Promise<CheckResult> {
  const key = normalizeKey(input);
  const state = await readKey(db, key);
  const status: CheckStatus = state.executed ? "EXECUTED" : state.claim && !claimExpired(state.claim, state.now) ? "CLAIMED" : "NOT_EXECUTED";
  return { ...state, key, status };
}

interface ClaimResult {
  kind: "claimed" | "renewed" | "taken_over";
  claim: Claim;
  /** The claim's id, which only this answer tells: new for claimed and taken_over, the one sent for a renewal; none for a claim granted before claim ids. */
  claimId: string | undefined;
  seq: number;
  /** The expired claim that was taken over. */
  previous: Claim | null;
  now: Date;
}

export async function claimLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; ttlSeconds?: number; claimId?: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
  /** The guard every stored text passes, in the form stored (normalised). */
  secrets: SecretGuard = REFUSING_GUARD,
): Promise<ClaimResult> {
  const key = normalizeKey(input);
  const ttl = normalizeTtl(input.ttlSeconds);
  const ref = normalizeClaimId(input.claimId);
  await secrets.check([["target", key.target]]);
  const id = newClaimId();
  return explainingClaims(db, key, ref, () =>
    writeLedger(db, key, actor, policy, (state): Decision<ClaimResult> => {
      const { now, executed, claim } = state;
      if (executed) throw conflict(refusals.alreadyExecuted(executed), { status: "EXECUTED" });
      const relation = claimRelation(claim, actor, ref, "claim");
      let kind: ClaimResult["kind"] = "claimed";
      let reason: string | null = null;
      if (relation === "holder") {
        kind = "renewed";
      } else if (ref !== undefined) {
        // An id that is not the key's claim's: its worker's claim ended (explainingClaims says how).
        throw new NotTheClaim(claim, now);
      } else if (claim && !claimExpired(claim, now)) {
        if (relation === "other_worker") throw new NotTheClaim(claim, now);
        throw conflict(refusals.claimedByOther(claim, now), { status: "CLAIMED", holder: claim.holder, expiresAt: claim.expiresAt.toISOString() });
      } else if (claim) {
        kind = "taken_over";
        reason = `the claim of ${claim.holder} expired at ${claim.expiresAt.toISOString()}`;
      }
      // A renewal holds nothing new; any other claim counts against the quota (checked again under the lock).
      const countsAgainstQuota = kind !== "renewed";
      if (countsAgainstQuota && state.agent!.openClaims >= policy.maxOpenClaimsPerAgent) {
        throw conflict(refusals.tooManyClaims(policy.maxOpenClaimsPerAgent), { openClaims: state.agent!.openClaims });
      }
      const renewed = kind === "renewed";
      // A worker that takes over its own agent's expired claim is the second worker on the key: its claim needs its id.
      const idRequired = kind === "taken_over" && claim!.holderId === actor.agentId;
      const ownRef = renewed ? claim!.ref : claimRef(id);
      return {
        append: { kind, reason, ttlSeconds: ttl, claim: renewed ? "renew" : "set", countsAgainstQuota, claimRef: ownRef, idRequired },
        answer: (appended) => ({
          kind,
          claim: {
            ...key,
            holderId: actor.agentId,
            holder: actor.name,
            claimedAt: appended.claimedAt!,
            expiresAt: appended.claimExpiresAt!,
            ref: ownRef,
            idRequired: renewed ? claim!.idRequired : idRequired,
          },
          claimId: renewed ? input.claimId?.trim() : id,
          seq: appended.seq,
          previous: kind === "taken_over" ? claim : null,
          now: appended.at,
        }),
      };
    }),
  );
}

/** Thrown by a decision: the write names a claim that is not the key's (an id of an ended claim, or none while another worker of its agent holds it). */
class NotTheClaim extends Error {
  constructor(
    readonly current: Claim | null,
    readonly now: Date,
  ) {
    super("not the key's claim");
  }
}

/**
 * Runs a claim, record or release, and turns NotTheClaim into its refusal:
 * without an id, another worker of the agent holds the key (which from now on
 * is finished with its id alone); with one, what became of that id's claim
 * (expired and taken over, recorded, released, voided), read from the chain.
 */
async function explainingClaims<T>(db: Queryable, key: LedgerKey, ref: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof NotTheClaim)) throw error;
    const current = error.current;
    if (ref === undefined && current) {
      if (current.ref !== null) await db.query(sql.REQUIRE_CLAIM_ID, [key.action, key.target, current.ref]);
      throw conflict(refusals.claimedByYouElsewhere(current, error.now), { status: "CLAIMED", holder: current.holder, expiresAt: current.expiresAt.toISOString() });
    }
    const fate = ref === undefined ? undefined : (await db.query<ClaimFateRow>(sql.CLAIM_FATE, [key.action, key.target, ref])).rows[0];
    throw conflict(refusals.notYourClaim(key, fate ? claimFate(fate) : undefined, current), { status: current ? "CLAIMED" : "NOT_CLAIMED" });
  }
}

export interface RecordResult {
  record: ExecutedRecord;
  /** True when this was an identical retry and the existing record was returned. */
  idempotent: boolean;
  /** The caller's claim that recording closed, if any. */
  closedClaim: Claim | null;
}

/** Record and release: an action moved to a scope the holder may not write does not strand its live claim (write.ts). */
const HOLDER_MAY_FINISH = { holderMayFinish: true } as const;

export async function recordLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; evidence: string; note?: string; claimId?: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
  /** The guard every stored text passes, in the form stored (normalised). */
  secrets: SecretGuard = REFUSING_GUARD,
): Promise<RecordResult> {
  const key = normalizeKey(input);
  const evidence = normalizeEvidence(input.evidence);
  const note = normalizeNote(input.note);
  const ref = normalizeClaimId(input.claimId);
  // What is stored, not what was sent: the URL parser drops tabs and line breaks, NFC joins characters.
  await secrets.check([["target", key.target], ["evidence", evidence], ["note", note ?? ""]]);
  try {
    return await explainingClaims(db, key, ref, () =>
      writeLedger(db, key, actor, policy, (state): Decision<RecordResult> => {
        const { now, executed, claim } = state;
        if (executed) {
          // A retry after a lost response must be safe: same actor, same evidence.
          if (executed.actorId === actor.agentId && executed.evidence === evidence) return { answer: { record: executed, idempotent: true, closedClaim: null } };
          throw conflict(refusals.secondRecord(executed), { status: "EXECUTED" });
        }
        // Only the holder of the key's claim records it (expired or not, as long
        // as nobody took it over): a record without one would let an agent mark
        // operations it never ran as done, and the real ones would then be refused. The claim quota bounds what one agent holds at once.
        const relation = claimRelation(claim, actor, ref, "finish");
        if (relation === "other_worker" || (relation === "not_its_agent" && ref !== undefined)) throw new NotTheClaim(claim, now);
        if (relation === "id_required") throw conflict(refusals.claimIdRequired(claim!, "record"), { status: "CLAIMED" });
        if (relation === "not_its_agent") {
          if (claim && !claimExpired(claim, now)) {
            throw conflict(refusals.recordWhileClaimed(claim, now), { status: "CLAIMED", holder: claim.holder, expiresAt: claim.expiresAt.toISOString() });
          }
          throw conflict(refusals.recordWithoutClaim(key, claim), { status: claim ? "CLAIM_EXPIRED" : "NOT_CLAIMED" });
        }
        return {
          append: { kind: "executed", evidence, note, claim: "drop", countsAgainstQuota: false, claimRef: claim!.ref },
          answer: (appended) => ({
            record: { seq: appended.seq, ...key, actorId: actor.agentId, actor: actor.name, at: appended.at, evidence, note, hash: appended.hash },
            idempotent: false,
            closedClaim: claim,
          }),
        };
      }, HOLDER_MAY_FINISH),
    );
  } catch (error) {
    // Only reachable if something bypassed the chain-head lock: the unique index still holds.
    if (pgCode(error) === PgCode.UNIQUE_VIOLATION) {
      throw conflict(`Refused: ${keyText(key)} was recorded at the same moment by someone else. Call ledger_check to see the record.`);
    }
    throw error;
  }
}

interface ReleaseResult {
  seq: number;
  released: Claim;
  reason: string;
  at: Date;
}

export async function releaseLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; reason: string; claimId?: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
  /** The guard every stored text passes, in the form stored (normalised). */
  secrets: SecretGuard = REFUSING_GUARD,
): Promise<ReleaseResult> {
  const key = normalizeKey(input);
  const reason = normalizeReason(input.reason);
  const ref = normalizeClaimId(input.claimId);
  await secrets.check([["target", key.target], ["reason", reason]]);
  return explainingClaims(db, key, ref, () =>
    writeLedger(db, key, actor, policy, (state): Decision<ReleaseResult> => {
      const { now, executed, claim } = state;
      // A record closes every claim: whoever asks to release is told it was executed.
      if (executed) throw conflict(refusals.releaseExecuted(executed));
      const relation = claimRelation(claim, actor, ref, "finish");
      if (relation === "other_worker" || (relation === "not_its_agent" && ref !== undefined)) throw new NotTheClaim(claim, now);
      if (relation === "id_required") throw conflict(refusals.claimIdRequired(claim!, "release"), { status: "CLAIMED" });
      if (relation === "not_its_agent") {
        if (claim) throw forbidden(refusals.releaseOthers(claim, now));
        throw notFound(refusals.releaseNone(key));
      }
      return {
        append: { kind: "released", reason, claim: "drop", countsAgainstQuota: false, claimRef: claim!.ref },
        answer: (appended) => ({ seq: appended.seq, released: claim!, reason, at: appended.at }),
      };
    }, HOLDER_MAY_FINISH),
  );
}

interface VoidResult {
  seq: number;
  at: Date;
  reason: string;
  /** What was voided: the executed record, or the claim (live or expired). */
  voided: { record: ExecutedRecord; claim: null } | { record: null; claim: Claim };
}

/**
 * An operator's correction: voids the current record (or, without one, the
 * claim) of a key, so that the real operation can be claimed and recorded. A new
 * "voided" event by a human agent, with a reason, appended to the chain: the
 * voided event stays in the ledger and in `ledger verify`/`export`, nothing is
 * rewritten. The database clears the key's record and claim in the same
 * statement (trigger am_ledger_track_records).
 */
export async function voidLedger(
  db: Database,
  operator: Actor,
  /** `recordSeq`: void only that record; refused when the key's record is another one (or none) by now. */
  input: { action: string; target: string; reason: string; recordSeq?: number },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
  /** The guard every stored text passes, in the form stored (normalised). */
  secrets: SecretGuard = REFUSING_GUARD,
): Promise<VoidResult> {
  const key = normalizeKey(input);
  const reason = normalizeReason(input.reason);
  await secrets.check([["target", key.target], ["reason", reason]]);
  return writeLedger(db, key, operator, policy, (state): Decision<VoidResult> => {
    if (!isHuman(state.agent!)) throw forbidden(refusals.voidNotHuman(operator.name));
    const { executed, claim } = state;
    if (input.recordSeq !== undefined && executed?.seq !== input.recordSeq) throw conflict(refusals.voidChanged(key, input.recordSeq, executed));
    if (!executed && !claim) throw notFound(refusals.voidNothing(key));
    const voided = executed ? { record: executed, claim: null } : { record: null, claim: claim! };
    return {
      // The database clears the key's record and claim (trigger am_ledger_track_records).
      append: { kind: "voided", reason, claim: "keep", countsAgainstQuota: false, claimRef: executed ? null : claim!.ref },
      answer: (appended) => ({ seq: appended.seq, at: appended.at, reason, voided }),
    };
  });
}
