// Input fields and output shapes shared by the ledger tools, and the mapping
// from store results to structured answers.
import * as z from "zod/v4";
import type { Claim, ExecutedRecord } from "../chain.js";
import { EVENT_KINDS, eventJson, type LedgerEvent } from "../event.js";
import { withRule } from "../../mcp/arguments.js";
import type { NullAsAbsent } from "../../mcp/tool.js";
import { normalizeClaimId, shortRef } from "../claim-id.js";
import { normalizeAction, normalizeTarget } from "../validate.js";

// Lengths and formats are the store's rules (validate.ts), whose refusals name
// the field and say what to fix; withRule lists them with the call's other problems.
export const keyInput = {
  action: withRule(z.string(), normalizeAction).describe("The operation, e.g. publish_qiita or deploy-prod."),
  target: withRule(z.string(), normalizeTarget).describe("What it applies to (article id, URL…); case-sensitive."),
};

/** The id ledger_claim answered with: what makes a claim this worker's (src/ledger/claim-id.ts). */
export const claimIdInput = withRule(z.string(), normalizeClaimId);

const iso = z.string().describe("ISO 8601 time (UTC).");

export const recordShape = z
  .object({
    seq: z.number().int().describe("Position in the ledger."),
    action: z.string(),
    target: z.string(),
    actor: z.string().describe("The agent that executed and recorded it."),
    at: iso,
    evidence: z.string().describe("URL where the result can be seen."),
    note: z.string().optional(),
    hash: z.string().describe("This record's link in the tamper-evident hash chain."),
  })
  .describe("The executed record.");

export const claimShape = z
  .object({
    action: z.string(),
    target: z.string(),
    holder: z.string().describe("The agent holding the claim."),
    claimedAt: iso,
    expiresAt: iso,
    expired: z.boolean().describe("True once expiresAt has passed: another agent may take the claim over."),
    yours: z.boolean().describe("True when your agent holds it (which of your workers: the one with its claimId)."),
    claimRef: z.string().optional().describe("The claim's public reference (not its id): the same on each of its events in ledger_list."),
  })
  .describe("The current claim on this action and target.");

export const eventShape = z.object({
  seq: z.number().int(),
  kind: z.enum(EVENT_KINDS).describe("claimed, renewed, released, taken_over (an expired claim taken by another agent) or executed."),
  action: z.string(),
  target: z.string(),
  actor: z.string(),
  at: iso,
  evidence: z.string().optional(),
  note: z.string().optional(),
  reason: z.string().optional(),
  claimExpiresAt: z.string().optional().describe("For claim events: until when the claim holds."),
  claimRef: z.string().optional().describe("The reference of the claim the event belongs to (not its id): links a claim's events."),
});

export const recordJson = (r: ExecutedRecord): NullAsAbsent<z.infer<typeof recordShape>> => ({
  seq: r.seq,
  action: r.action,
  target: r.target,
  actor: r.actor,
  at: r.at.toISOString(),
  evidence: r.evidence,
  note: r.note,
  hash: r.hash,
});

export const claimJson = (c: Claim, now: Date, agentId: number): z.infer<typeof claimShape> => ({
  action: c.action,
  target: c.target,
  holder: c.holder,
  claimedAt: c.claimedAt.toISOString(),
  expiresAt: c.expiresAt.toISOString(),
  expired: c.expiresAt.getTime() <= now.getTime(),
  yours: c.holderId === agentId,
  ...(c.ref ? { claimRef: shortRef(c.ref) } : {}),
});

/** An event as ledger_list shows it: the export record without the chain hashes. */
export const listEventJson = (e: LedgerEvent): NullAsAbsent<z.infer<typeof eventShape>> => {
  const { prevHash: _prev, hash: _hash, claimRef, ...shown } = eventJson(e);
  return { ...shown, ...(claimRef ? { claimRef: shortRef(claimRef) } : {}) };
};
