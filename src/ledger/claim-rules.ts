// Whose claim a write is about: the one rule that claim, record and release
// share. A claim belongs to the worker that made it, known by the claim's id
// (claim-id.ts), not to its agent: of several workers of one agent (one token),
// only the one holding the id renews, records or releases it. A claim without
// the id is never a renewal: it is another worker asking. A record or release
// without the id is taken for the claim's one worker while that is safe
// (clients written before claim ids): the claim was granted before claim ids,
// or no other worker of its agent has asked for the key (claim.idRequired says
// one has).
import type { Actor, Claim } from "./chain.js";

/** What a write by `actor`, sending the id of reference `ref` (or none), is to the key's `claim`. */
export type ClaimRelation =
  /** The actor's own claim: it may renew, record or release it (live, or expired and not taken over). */
  | "holder"
  /** Its agent's claim, held by another worker (no id, or another claim's): refused like another agent's. */
  | "other_worker"
  /** Its agent's claim, which needs its id since two workers asked: refused until the id comes. */
  | "id_required"
  /** Another agent's claim, or none. */
  | "not_its_agent";

export function claimRelation(claim: Claim | null, actor: Actor, ref: string | undefined, write: "claim" | "finish"): ClaimRelation {
  if (!claim || claim.holderId !== actor.agentId) return "not_its_agent";
  if (ref !== undefined) return claim.ref === ref ? "holder" : "other_worker";
  // Granted before claim ids: finished (and renewed) by its agent, as then.
  if (claim.ref === null) return "holder";
  if (write === "claim") return "other_worker";
  return claim.idRequired ? "id_required" : "holder";
}
