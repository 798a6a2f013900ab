// The ledger's rules. Every write runs in one short transaction that first locks
// the chain head (chain.ts), so check-then-write is exact: of any number of agents
// or replicas racing on one (action, target), exactly one claim or record wins.
// Writes are permitted per action scope and claims are capped per agent
// (docs/ledger-permissions.md); both are read under the same lock.
import * as z from "zod/v4";
import { ALL_SCOPES } from "../auth/scopes.js";
import type { Database, Queryable } from "../db/database.js";
import { pgCode, PgCode } from "../db/errors.js";
import { conflict, forbidden, notFound } from "../errors.js";
import { encodeCursor, decodeCursor } from "../paging.js";
import {
  type Actor,
  type AgentWriteState,
  appendEvent,
  type Claim,
  claimExpired,
  type ExecutedRecord,
  type KeyState,
  type KeyStateRow,
  lockKeyForAgent,
  toKeyState,
} from "./chain.js";
import { type EventKind, type EventRow, type LedgerEvent, toEvent } from "./event.js";
import { keyText, refusals } from "./format.js";
import * as sql from "./sql.js";
import {
  type LedgerKey,
  normalizeAction,
  normalizeEvidence,
  normalizeKey,
  normalizeLimit,
  normalizeNote,
  normalizeReason,
  normalizeTarget,
  normalizeTtl,
  parseSince,
} from "./validate.js";

export type { Actor, Claim, ExecutedRecord } from "./chain.js";

/** Who may write which action, and how many claims one agent may hold (from config). */
export interface LedgerPolicy {
  defaultScope: string;
  maxOpenClaimsPerAgent: number;
}

export const DEFAULT_LEDGER_POLICY: LedgerPolicy = { defaultScope: "shared", maxOpenClaimsPerAgent: 100 };

/**
 * The write permission, checked against the agent as stored (not as the token
 * said at sign-in), so a scope change applies to the next write.
 */
function validateMayWrite(state: AgentWriteState, actor: Actor, key: LedgerKey): void {
  const agent = state.agent;
  if (!agent || agent.disabled) throw forbidden(`Refused: agent ${actor.name} is unknown or disabled. Nothing was written.`);
  if (!agent.writeScopes.includes(ALL_SCOPES) && !agent.writeScopes.includes(state.actionScope)) {
    throw forbidden(refusals.noPermission(key, state.actionScope, actor.name));
  }
}

async function lockForWrite(tx: Queryable, key: LedgerKey, actor: Actor, policy: LedgerPolicy): Promise<AgentWriteState> {
  const state = await lockKeyForAgent(tx, key, actor.agentId, policy.defaultScope);
  validateMayWrite(state, actor, key);
  return state;
}

export type CheckStatus = "EXECUTED" | "CLAIMED" | "NOT_EXECUTED";

export interface CheckResult extends KeyState {
  key: LedgerKey;
  status: CheckStatus;
}

export async function checkLedger(db: Queryable, input: { action: string; target: string }): Promise<CheckResult> {
  const key = normalizeKey(input);
  const row = (await db.query<KeyStateRow>(sql.READ_KEY, [key.action, key.target])).rows[0]!;
  const state = toKeyState(key, row);
  const status: CheckStatus = state.executed ? "EXECUTED" : state.claim && !claimExpired(state.claim, state.now) ? "CLAIMED" : "NOT_EXECUTED";
  return { ...state, key, status };
}

export interface ClaimResult {
  kind: "claimed" | "renewed" | "taken_over";
  claim: Claim;
  seq: number;
  /** The expired claim that was taken over. */
  previous: Claim | null;
  now: Date;
}

export async function claimLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; ttlSeconds?: number },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
): Promise<ClaimResult> {
  const key = normalizeKey(input);
  const ttl = normalizeTtl(input.ttlSeconds);
  return db.transaction(async (tx) => {
    const state = await lockForWrite(tx, key, actor, policy);
    const { now, executed, claim } = state;
    if (executed) throw conflict(refusals.alreadyExecuted(executed), { status: "EXECUTED" });
    const expiresAt = new Date(now.getTime() + ttl * 1000);
    let kind: ClaimResult["kind"] = "claimed";
    let reason: string | null = null;
    let claimedAt = now;
    if (claim && claim.holderId === actor.agentId) {
      kind = "renewed";
      claimedAt = claim.claimedAt;
    } else if (claim && !claimExpired(claim, now)) {
      throw conflict(refusals.claimedByOther(claim, now), { status: "CLAIMED", holder: claim.holder, expiresAt: claim.expiresAt.toISOString() });
    } else if (claim) {
      kind = "taken_over";
      reason = `the claim of ${claim.holder} expired at ${claim.expiresAt.toISOString()}`;
    }
    // A renewal holds nothing new; any other claim counts against the quota.
    if (kind !== "renewed" && state.agent!.openClaims >= policy.maxOpenClaimsPerAgent) {
      throw conflict(refusals.tooManyClaims(policy.maxOpenClaimsPerAgent), { openClaims: state.agent!.openClaims });
    }
    const event = await appendEvent(tx, state, key, actor, { kind, reason, claimExpiresAt: expiresAt }, { set: claimedAt });
    return {
      kind,
      claim: { ...key, holderId: actor.agentId, holder: actor.name, claimedAt, expiresAt },
      seq: event.seq,
      previous: kind === "taken_over" ? claim : null,
      now,
    };
  });
}

export interface RecordResult {
  record: ExecutedRecord;
  /** True when this was an identical retry and the existing record was returned. */
  idempotent: boolean;
  /** The caller's claim that recording closed, if any. */
  closedClaim: Claim | null;
}

export async function recordLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; evidence: string; note?: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
): Promise<RecordResult> {
  const key = normalizeKey(input);
  const evidence = normalizeEvidence(input.evidence);
  const note = normalizeNote(input.note);
  try {
    return await db.transaction(async (tx) => {
      const state = await lockForWrite(tx, key, actor, policy);
      const { now, executed, claim } = state;
      if (executed) {
        // A retry after a lost response must be safe: same actor, same evidence.
        if (executed.actorId === actor.agentId && executed.evidence === evidence) return { record: executed, idempotent: true, closedClaim: null };
        throw conflict(refusals.secondRecord(executed), { status: "EXECUTED" });
      }
      if (claim && claim.holderId !== actor.agentId && !claimExpired(claim, now)) {
        throw conflict(refusals.recordWhileClaimed(claim, now), { status: "CLAIMED", holder: claim.holder, expiresAt: claim.expiresAt.toISOString() });
      }
      const event = await appendEvent(tx, state, key, actor, { kind: "executed", evidence, note }, "drop");
      const record: ExecutedRecord = { seq: event.seq, ...key, actorId: actor.agentId, actor: actor.name, at: event.at, evidence, note, hash: event.hash };
      return { record, idempotent: false, closedClaim: claim && claim.holderId === actor.agentId ? claim : null };
    });
  } catch (error) {
    // Only reachable if something bypassed the chain-head lock: the unique index still holds.
    if (pgCode(error) === PgCode.UNIQUE_VIOLATION) {
      throw conflict(`Refused: ${keyText(key)} was recorded at the same moment by someone else. Call ledger_check to see the record.`);
    }
    throw error;
  }
}

export interface ReleaseResult {
  seq: number;
  released: Claim;
  reason: string;
  at: Date;
}

export async function releaseLedger(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; reason: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
): Promise<ReleaseResult> {
  const key = normalizeKey(input);
  const reason = normalizeReason(input.reason);
  return db.transaction(async (tx) => {
    const state = await lockForWrite(tx, key, actor, policy);
    const { now, executed, claim } = state;
    if (!claim || claim.holderId !== actor.agentId) {
      if (executed) throw conflict(refusals.releaseExecuted(executed));
      if (claim) throw forbidden(refusals.releaseOthers(claim, now));
      throw notFound(refusals.releaseNone(key));
    }
    const event = await appendEvent(tx, state, key, actor, { kind: "released", reason }, "drop");
    return { seq: event.seq, released: claim, reason, at: event.at };
  });
}

export interface VoidResult {
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
  input: { action: string; target: string; reason: string },
  policy: LedgerPolicy = DEFAULT_LEDGER_POLICY,
): Promise<VoidResult> {
  const key = normalizeKey(input);
  const reason = normalizeReason(input.reason);
  return db.transaction(async (tx) => {
    const state = await lockForWrite(tx, key, operator, policy);
    if (state.agent!.kind !== "human") throw forbidden(refusals.voidNotHuman(operator.name));
    const { executed, claim } = state;
    if (!executed && !claim) throw notFound(refusals.voidNothing(key));
    const event = await appendEvent(tx, state, key, operator, { kind: "voided", reason }, "keep");
    const voided = executed ? { record: executed, claim: null } : { record: null, claim: claim! };
    return { seq: event.seq, at: event.at, reason, voided };
  });
}

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
}

const Cursor = z.object({ seq: z.number().int().positive() });

export async function listLedger(db: Queryable, filters: ListFilters): Promise<ListResult> {
  const action = filters.action === undefined ? null : normalizeAction(filters.action);
  const target = filters.target === undefined ? null : normalizeTarget(filters.target);
  const actor = filters.actor === undefined ? null : filters.actor.trim();
  const since = parseSince(filters.since);
  const limit = normalizeLimit(filters.limit);
  const after = decodeCursor(filters.cursor, Cursor);
  // One row more than asked tells whether another page exists.
  const rows = (
    await db.query<EventRow>(sql.LIST_EVENTS, [action, target, actor, since?.toISOString() ?? null, filters.kind ?? null, after?.seq ?? null, limit + 1])
  ).rows;
  const events = rows.slice(0, limit).map(toEvent);
  const last = events[events.length - 1];
  return { events, nextCursor: rows.length > limit && last ? encodeCursor({ seq: last.seq }) : null };
}

/** Claims held right now (expired ones are free to take), soonest expiry first. */
export async function listOpenClaims(db: Queryable, limit: number): Promise<Claim[]> {
  const rows = (
    await db.query<{ action: string; target: string; holder_id: number; holder: string; claimed_at: Date; expires_at: Date }>(sql.OPEN_CLAIMS, [limit])
  ).rows;
  return rows.map((r) => ({ action: r.action, target: r.target, holderId: Number(r.holder_id), holder: r.holder, claimedAt: r.claimed_at, expiresAt: r.expires_at }));
}
