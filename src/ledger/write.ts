// How an agent's ledger write runs, so that the chain head (which every write
// serializes on) is held as briefly as possible:
//   1. read the key and the agent's permission inputs WITHOUT the head lock;
//   2. check permission and decide (claim, renew, take over, record, refuse…) in JS;
//   3. one statement (am_ledger_append) locks the head, checks that the key is
//      still as read in 1, hashes in SQL, appends and moves the head; autocommit.
//      Writes that reach step 3 while another is in flight go together in the next
//      statement (appender.ts): one lock and one commit flush for all of them.
// The head is held for step 3 and its commit only: no client round trip, no JS.
// If the key changed between 1 and 3 (a racer on the same key won), nothing is
// written and we start again from 1; the decision is then made on the new state
// (usually a refusal). After a few such rounds, 1-3 run inside one transaction
// that takes the head lock first, as every write did before, so a key under
// constant churn still gets an answer. Exactly once holds either way: every
// append is decided by a check made under the head lock, and ledger_records'
// primary key backs it up.
import { ALL_SCOPES } from "../auth/scopes.js";
import type { Database, Queryable } from "../db/core/database.js";
import { forbidden } from "../errors.js";
import { type Actor, claimExpired, type KeyState, type KeyStateRow, toKeyState } from "./chain.js";
import type { EventKind } from "./event.js";
import { refusals } from "./format.js";
import { type Appended, appendGrouped, appendMany, type AppendRequest } from "./appender.js";
import { prepared } from "./prepared.js";
import * as sql from "./sql.js";
import type { LedgerKey } from "./validate.js";

/** What an agent's write is checked against. */
interface AgentWriteState extends KeyState {
  actionScope: string;
  /** Null when the agent does not exist. */
  agent: { writeScopes: string[]; kind: "agent" | "human"; disabled: boolean; openClaims: number } | null;
}

interface AgentWriteRow extends KeyStateRow {
  action_scope: string;
  agent_write_scopes: string[] | null;
  agent_kind: "agent" | "human" | null;
  agent_disabled: boolean | null;
  agent_open_claims: number;
}

/** The event a decision wants appended, and what it does to the key's claim. */
export interface PlannedEvent {
  kind: EventKind;
  evidence?: string | null;
  note?: string | null;
  reason?: string | null;
  /** Claim events: the claim expires this long after the event's time. */
  ttlSeconds?: number;
  /** set: the actor holds the claim from now; renew: new expiry; drop: delete it; keep: leave it. */
  claim: "set" | "renew" | "drop" | "keep";
  /** Check the claim quota (policy.maxOpenClaimsPerAgent) again under the lock. */
  countsAgainstQuota: boolean;
  /** The reference of the claim the event belongs to (for set: the new claim's); null or absent: none. */
  claimRef?: string | null;
  /** For set: the new claim is finished with its id alone (claim-rules.ts). */
  idRequired?: boolean;
}

/** A decision: an answer without writing (an idempotent retry), or an event to append and how to answer once it is. Refusals throw. */
export type { Appended } from "./appender.js";
export type Decision<T> = { answer: T } | { append: PlannedEvent; answer(appended: Appended): T };

interface WriteOptions {
  /** Record and release: the holder of the key's live claim may write even without the action's scope. */
  holderMayFinish?: boolean;
}

interface WritePolicy {
  defaultScope: string;
  maxOpenClaimsPerAgent: number;
}

// Rounds of read-decide-append before falling back to the locked transaction.
// On distinct keys the first round succeeds; a key raced by others settles in
// the second (the state read then shows the winner).
const OPTIMISTIC_ROUNDS = 3;

async function readForAgent(db: Queryable, key: LedgerKey, agentId: number, defaultScope: string): Promise<AgentWriteState> {
  // Prepared: planning this join took longer than running it (bench/README.md, the ledger's
  // write path), and its plan is unique-key lookups whatever the statistics.
  const row = (await db.query<AgentWriteRow>(sql.READ_KEY_FOR_AGENT, [key.action, key.target, agentId, defaultScope], prepared("read_for_agent"))).rows[0];
  if (!row) throw new Error("ledger chain head row is missing");
  return {
    ...toKeyState(key, row),
    actionScope: row.action_scope,
    agent:
      row.agent_kind === null
        ? null
        : { writeScopes: row.agent_write_scopes ?? [], kind: row.agent_kind, disabled: row.agent_disabled === true, openClaims: Number(row.agent_open_claims) },
  };
}

/**
 * The write permission, checked against the agent as stored (not as the token
 * said at sign-in), so a scope change applies to the next write.
 */
function validateMayWrite(state: AgentWriteState, actor: Actor, key: LedgerKey, options: WriteOptions): void {
  const agent = state.agent;
  if (!agent || agent.disabled) throw forbidden(`Refused: agent ${actor.name} is unknown or disabled. Nothing was written.`);
  // The holder of a live claim may still record or release what it claimed
  // when an operator has since moved the action to a scope it may not write
  // (ledger action set): the claim was granted, the operation may have run, and
  // an execution that cannot be recorded would be run again by the next claimant.
  const finishingOwnClaim = options.holderMayFinish === true && state.claim?.holderId === actor.agentId && !claimExpired(state.claim, state.now);
  if (!finishingOwnClaim && !agent.writeScopes.includes(ALL_SCOPES) && !agent.writeScopes.includes(state.actionScope)) {
    throw forbidden(refusals.noPermission(key, state.actionScope, actor.name));
  }
}

function appendRequest(state: AgentWriteState, key: LedgerKey, actor: Actor, event: PlannedEvent, policy: WritePolicy): AppendRequest {
  return {
    kind: event.kind,
    action: key.action,
    target: key.target,
    actorId: actor.agentId,
    actor: actor.name,
    evidence: event.evidence ?? null,
    note: event.note ?? null,
    reason: event.reason ?? null,
    ttlSeconds: event.ttlSeconds ?? null,
    claim: event.claim,
    seenRecordSeq: state.executed?.seq ?? null,
    seenClaim: state.claimVersion,
    maxOpenClaims: event.countsAgainstQuota ? policy.maxOpenClaimsPerAgent : null,
    at: null,
    claimExpiresAt: null,
    claimRef: event.claimRef ?? null,
    idRequired: event.idRequired ?? false,
  };
}

/** Step 3 alone, inside the caller's transaction (the fallback, which already holds the head). */
async function appendInTransaction(tx: Queryable, req: AppendRequest): Promise<Appended | null> {
  const [result] = await appendMany(tx, [req]);
  if (result instanceof Error) throw result;
  return result ?? null;
}

async function attempt<T>(
  db: Queryable,
  key: LedgerKey,
  actor: Actor,
  policy: WritePolicy,
  decide: (state: AgentWriteState) => Decision<T>,
  append: (db: Queryable, req: AppendRequest) => Promise<Appended | null>,
  options: WriteOptions,
): Promise<{ done: T } | null> {
  const state = await readForAgent(db, key, actor.agentId, policy.defaultScope);
  validateMayWrite(state, actor, key, options);
  const decision = decide(state);
  if (!("append" in decision)) return { done: decision.answer };
  const appended = await append(db, appendRequest(state, key, actor, decision.append, policy));
  return appended ? { done: decision.answer(appended) } : null;
}

/** Runs one agent's write on `key`: `decide` sees the state, refuses by throwing, or plans the event. */
export async function writeLedger<T>(
  db: Database,
  key: LedgerKey,
  actor: Actor,
  policy: WritePolicy,
  decide: (state: AgentWriteState) => Decision<T>,
  options: WriteOptions = {},
): Promise<T> {
  for (let round = 0; round < OPTIMISTIC_ROUNDS; round++) {
    const result = await attempt(db, key, actor, policy, decide, appendGrouped, options);
    if (result) return result.done;
  }
  return db.transaction(async (tx) => {
    await tx.query(sql.LOCK_HEAD);
    const result = await attempt(tx, key, actor, policy, decide, appendInTransaction, options);
    // Under the head lock nothing can change between the read and the append.
    if (!result) throw new Error("ledger key changed while the chain head was locked");
    return result.done;
  });
}
