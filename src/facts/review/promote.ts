// A review: a fact confirmed or deprecated (memory_promote, the console), under
// a lock on the fact, never by its own author for a confirmation.
import type { AppDeps } from "../../app-deps.js";
import type { Caller } from "../../auth/caller.js";
import { assertCanWrite, readableScopes, validateScope } from "../../auth/scopes.js";
import type { Database } from "../../db/core/database.js";
import { conflict, forbidden } from "../../errors.js";
import { REFUSING_GUARD, type SecretGuard } from "../../secrets/guard.js";
import { ambiguousFact, missingFact, staleVersion } from "../messages.js";
import { type FactSummary, isoTime, toSummary } from "../model.js";
import { ALLOWED_TRANSITIONS_TEXT, isReconfirmation, STALE_AFTER_DAYS_DEFAULT, type FactStatus, type PromotionTarget, transitionAllowed, validateName, validateReason, validateVersion } from "../rules.js";
import * as reviewSql from "./review-sql.js";
import { prepared } from "../prepared.js";
import * as sql from "../sql.js";
import type { LockedRow } from "../lifecycle/store.js";
import { completeSupersession, type Superseded } from "../trust/supersession.js";
import { withdrawalReaders } from "../trust/receipts.js";

interface PromoteInput {
  name: string;
  to: PromotionTarget;
  reason: string;
  scope?: string | undefined;
  version?: number | undefined;
}

export interface PromoteResult {
  fact: FactSummary;
  from: FactStatus;
  to: PromotionTarget;
  reason: string;
  actor: string;
  at: string;
  /** The fact this confirmation deprecated as replaced by this one. */
  superseded?: Superseded;
  /**
   * A deprecation (of this fact, or of the one it superseded): the agents that
   * read that fact since it was last confirmed, each told at its next recall
   * (at most READERS_SHOWN names; `total` counts them all).
   */
  readersTold?: { names: string[]; total: number };
}

export async function promoteFact(
  db: Database,
  caller: Caller,
  input: PromoteInput,
  options: { staleAfterDays?: number; secrets?: SecretGuard } = {},
): Promise<PromoteResult> {
  const staleAfterDays = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const name = validateName(input.name);
  const scope = input.scope === undefined ? undefined : validateScope(input.scope);
  const reason = validateReason(input.reason);
  const version = validateVersion(input.version);
  await (options.secrets ?? REFUSING_GUARD).check([["reason", reason]]);
  const readable = readableScopes(caller);

  return db.transaction(async (tx) => {
    // Exact name only, and only where the caller may read: an unreadable fact
    // gets the same answer as a missing one.
    const rows = (await tx.query<LockedRow & { stale: boolean }>(sql.LOCK_FACT_FOR_PROMOTION, [name, scope ?? null, readable.all, readable.scopes, staleAfterDays], prepared("lock_for_promotion"))).rows;
    const row = rows[0];
    if (!row) throw missingFact(caller, name, scope);
    if (rows.length > 1) throw ambiguousFact(name, rows.map((r) => r.scope));
    assertCanWrite(caller, row.scope);
    if (version !== undefined && row.version !== version) {
      throw staleVersion(name, row.scope, version, { version: row.version, author: row.author, updatedAt: isoTime(row.updated_at) }, "review");
    }
    // A stale confirmed fact may be confirmed again (a new review); a fresh
    // one may not, so that racing reviewers still make exactly one confirmation.
    const review = isReconfirmation(row.status, input.to) && row.stale;
    if (!transitionAllowed(row.status, input.to) && !review) {
      const already =
        row.status === input.to ? ` It is already ${row.status}${row.status_by ? ` (by ${row.status_by} at ${isoTime(row.status_at!)})` : ""}.` : "";
      throw conflict(
        `memory_promote cannot move "${name}" (scope ${row.scope}, version ${row.version}) from ${row.status} to ${input.to}.${already} ` +
          `Allowed: ${ALLOWED_TRANSITIONS_TEXT}; and confirmed → confirmed again once nobody has reviewed it for ${staleAfterDays} days (stale). ` +
          `A deprecated fact comes back only as a new version stored with memory_store, which starts again as a draft.`,
        { status: row.status },
      );
    }
    if (input.to === "confirmed" && row.author_id === caller.agentId) {
      throw forbidden(await selfApprovalMessage(tx, row));
    }
    const done = (await tx.query<{ version: number; status_at: Date }>(sql.PROMOTE_FACT, [row.id, input.to, caller.agentId, reason, row.status, null], prepared("promote"))).rows[0]!;
    const at = isoTime(done.status_at);
    const superseded = input.to === "confirmed" && row.supersedes_id !== null ? await completeSupersession(tx, { id: row.id, scope: row.scope, name: row.name, version: row.version }, row.supersedes_id, caller) : undefined;
    const withdrawn = input.to === "deprecated" ? row.id : superseded ? row.supersedes_id : null;
    const readersTold = withdrawn === null ? undefined : await withdrawalReaders(tx, withdrawn);
    return {
      ...(superseded ? { superseded } : {}),
      ...(readersTold && readersTold.total > 0 ? { readersTold } : {}),
      fact: { ...toSummary(row), status: input.to, statusBy: caller.name, statusAt: at, statusReason: reason },
      from: row.status,
      to: input.to,
      reason,
      actor: caller.name,
      at,
    };
  });
}

/** How /metrics counts a review (agent_memory_reviews_total). */
const reviewOutcome = (r: PromoteResult): "confirmed" | "deprecated" | "reconfirmed" => (r.to === "deprecated" ? "deprecated" : r.from === "confirmed" ? "reconfirmed" : "confirmed");

/**
 * A review as the service takes it, from memory_promote or the console: the
 * promotion with the service's settings (STALE_AFTER_DAYS, SECRET_GUARD),
 * counted in /metrics. The one place a review is counted.
 */
export async function reviewFact(deps: Pick<AppDeps, "db" | "config" | "secrets" | "metrics" | "receipts">, caller: Caller, input: PromoteInput): Promise<PromoteResult> {
  // This process's receipts not yet written are written first, so that a
  // deprecation reaches an agent that read the fact a moment ago (receipts
  // from other service processes may still be up to RECEIPT_FLUSH_MS behind).
  await deps.receipts.flush();
  const done = await promoteFact(deps.db, caller, input, { staleAfterDays: deps.config.facts.staleAfterDays, secrets: deps.secrets });
  deps.metrics.reviews.inc({ outcome: reviewOutcome(done) });
  return done;
}

async function selfApprovalMessage(tx: Pick<Database, "query">, row: LockedRow): Promise<string> {
  const reviewers = (await tx.query<{ name: string; kind: string }>(reviewSql.POSSIBLE_REVIEWERS, [row.author_id, row.scope], prepared("possible_reviewers"))).rows;
  const who =
    reviewers.length === 0
      ? `No other active agent may write scope "${row.scope}" yet; an administrator can grant one with: agent-memory agent scopes <name> --scopes ${row.scope}.`
      : `Agents who may confirm it: ${reviewers
          .slice(0, 5)
          .map((r) => (r.kind === "human" ? `${r.name} (human)` : r.name))
          .join(", ")}${reviewers.length > 5 ? ", …" : ""} — any agent or human other than you with write access to scope "${row.scope}".`;
  return (
    `You (${row.author}) wrote version ${row.version} of "${row.name}", so you may not confirm it: a fact is confirmed only by someone other than its author. ` +
    `${who} They find it with memory_list reviewable: true. You may still deprecate your own fact if it is wrong.`
  );
}
