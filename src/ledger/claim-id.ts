// A claim's id: 32 random bytes behind the prefix aml_, made when a claim is
// granted and answered to the worker that made it alone; that worker passes it
// to renew, record or release the claim, so that of several workers of one
// agent (one token) only the one that won the claim finishes it. The ledger
// keeps the claim's reference instead, the SHA-256 of the id: it links a
// claim's events in the chain, in exports and in the console, and reveals
// nothing that would let another worker or agent act on the claim. The id is
// never logged (it is a tool's argument and answer; neither is logged).
import { createHash, randomBytes } from "node:crypto";
import { invalid } from "../errors.js";
import { CLAIM_ID_PREFIX, OWN_SECRET_BODY_CHARS } from "../secrets/own-tokens.js";

const CLAIM_ID_PATTERN = new RegExp(`^${CLAIM_ID_PREFIX}[A-Za-z0-9_-]{${OWN_SECRET_BODY_CHARS}}$`);

export function newClaimId(): string {
  return CLAIM_ID_PREFIX + randomBytes(32).toString("base64url");
}

/** The reference the ledger keeps of a claim id. */
export function claimRef(claimId: string): string {
  return createHash("sha256").update(claimId, "utf8").digest("hex");
}

/** How a reference is shown (the console, ledger_list): enough to tell a claim's events apart from another's. */
export function shortRef(ref: string): string {
  return ref.slice(0, 12);
}

/** The reference of a claim id sent by an agent, or undefined when none was sent; a malformed one is refused. */
export function normalizeClaimId(claimId: string | undefined): string | undefined {
  if (claimId === undefined) return undefined;
  const id = claimId.trim();
  if (!CLAIM_ID_PATTERN.test(id)) {
    throw invalid(`claimId must be the id ledger_claim answered with (${CLAIM_ID_PREFIX} and ${OWN_SECRET_BODY_CHARS} characters); pass it exactly as received. Nothing was written.`);
  }
  return claimRef(id);
}
