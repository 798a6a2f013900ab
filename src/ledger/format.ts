// The sentences agents read: answers and refusals of the ledger tools. Each says
// what is true and what to do next.
import type { Claim, ExecutedRecord } from "./chain.js";
import { shortRef } from "./claim-id.js";
import type { LedgerEvent } from "./event.js";
import type { LedgerKey } from "./validate.js";

export const keyText = (key: LedgerKey): string => `${key.action} for ${JSON.stringify(key.target)}`;

const secondsLeft = (until: Date, now: Date): number => Math.max(0, Math.ceil((until.getTime() - now.getTime()) / 1000));

export function executedText(r: ExecutedRecord): string {
  return (
    `${keyText(r)} was executed by ${r.actor} at ${r.at.toISOString()} (ledger #${r.seq}). Evidence: ${r.evidence}` +
    (r.note ? `. Note: ${r.note}` : "")
  );
}

function claimText(claim: Claim, now: Date, you: boolean): string {
  return `${keyText(claim)} is claimed by ${you ? "you" : claim.holder} until ${claim.expiresAt.toISOString()} (${secondsLeft(claim.expiresAt, now)} s left)`;
}

export const checkTexts = {
  executed: (r: ExecutedRecord) => `EXECUTED: ${executedText(r)}. Do not execute it again.`,
  claimedByYou: (c: Claim, now: Date) =>
    `CLAIMED: ${claimText(c, now, true)}. Execute it, then call ledger_record with the evidence URL (or ledger_release if you give up).`,
  claimedByOther: (c: Claim, now: Date) =>
    `CLAIMED: ${claimText(c, now, false)}. Do not execute it; check again after the claim ends.`,
  notExecuted: (key: LedgerKey, expired: Claim | null) =>
    `NOT_EXECUTED: ${keyText(key)} has no record. Call ledger_claim before executing it.` +
    (expired ? ` (A claim by ${expired.holder} expired at ${expired.expiresAt.toISOString()}; it can be taken over.)` : ""),
};

export const refusals = {
  noPermission: (key: LedgerKey, scope: string, agent: string) =>
    `Refused: ${key.action} belongs to scope "${scope}", and you (${agent}) may not write to it, so you may not claim, record or release ${keyText(key)}. ` +
    `Ask an operator for write access to "${scope}" (or to map the action to one of your scopes). Nothing was written.`,
  tooManyClaims: (max: number) =>
    `Refused: you already hold ${max} open claims (LEDGER_MAX_OPEN_CLAIMS_PER_AGENT). Record or release the ones you are done with (ledger_list kind=claimed actor=<you>), then claim again. Nothing was written.`,
  voidNotHuman: (agent: string) => `Refused: only a human agent may void ledger entries; ${agent} is not one. Nothing was written.`,
  voidNothing: (key: LedgerKey) => `Nothing to void: ${keyText(key)} has no record and no claim.`,
  voidChanged: (key: LedgerKey, seq: number, current: ExecutedRecord | null) =>
    `Not voided: ledger #${seq} is no longer the record of ${keyText(key)} (` +
    (current ? `the record now is #${current.seq}, by ${current.actor}` : "it has no record now") +
    "). Nothing was written; look at the ledger again before you decide.",
  alreadyExecuted: (r: ExecutedRecord) => `Refused: ${executedText(r)}. Do not execute it again.`,
  claimedByOther: (c: Claim, now: Date) =>
    `Refused: ${claimText(c, now, false)}. Do not execute it; check again after ${c.expiresAt.toISOString()}, or ask ${c.holder}.`,
  recordWhileClaimed: (c: Claim, now: Date) =>
    `Refused: ${claimText(c, now, false)}; only ${c.holder} may record it until then. Nothing was written.`,
  recordWithoutClaim: (key: LedgerKey, expired: Claim | null) =>
    `Refused: you hold no claim on ${keyText(key)}` +
    (expired ? ` (the last one, by ${expired.holder}, expired at ${expired.expiresAt.toISOString()})` : "") +
    `. Only the holder of its claim records an action: call ledger_claim, then ledger_record. Nothing was written.`,
  secondRecord: (r: ExecutedRecord) =>
    `Refused: a second record of the same action is not allowed. ${executedText(r)}. Nothing was written.`,
  releaseExecuted: (r: ExecutedRecord) => `Nothing to release: ${executedText(r)}.`,
  releaseOthers: (c: Claim, now: Date) => `Refused: ${claimText(c, now, false)}; only the holder can release it.`,
  releaseNone: (key: LedgerKey) => `Nothing to release: you hold no claim on ${keyText(key)}.`,
  claimedByYouElsewhere: (c: Claim, now: Date) =>
    `Refused: ${keyText(c)} is already claimed by you, in another worker, until ${c.expiresAt.toISOString()} (${secondsLeft(c.expiresAt, now)} s left). ` +
    "Do not execute it: the worker that holds the claim will. If that worker stopped, wait for the claim to expire (then claim it again), " +
    "or release it with its claimId. A worker renews its own claim by passing its claimId. Nothing was written.",
  claimIdRequired: (c: Claim, write: "record" | "release") =>
    `Refused: pass the claimId that ledger_claim answered you. More than one of your workers has asked for ${keyText(c)}, ` +
    `so only the one holding the claim's id may ${write} it. Nothing was written.`,
  notYourClaim: (key: LedgerKey, fate: string | undefined, current: Claim | null) =>
    (fate ? `Refused: your claim on ${keyText(key)} ${fate}` : `Refused: that claimId is not a claim of ${keyText(key)}; pass the id ledger_claim answered for this action and target`) +
    (current ? `. It is claimed by ${current.holder} now, until ${current.expiresAt.toISOString()}` : "") +
    ". Nothing was written. If you already executed it, do not execute it again: tell the current holder (it records the operation with your evidence in its note), " +
    "or ask a person to void the claim in the console; if you did not, ledger_check says what to do.",
};

/** The last event of an ended claim, and the one after it (src/ledger/sql.ts CLAIM_FATE). */
export interface ClaimFateRow {
  seq: number;
  kind: string;
  at: Date;
  claim_expires_at: Date | null;
  next_actor: string | null;
  next_kind: string | null;
}

/** What became of a claim: "expired at … and was taken over by …", "was released at …". */
export function claimFate(r: ClaimFateRow): string {
  const at = r.at.toISOString();
  switch (r.kind) {
    case "executed":
      return `was recorded at ${at} (ledger #${r.seq})`;
    case "released":
      return `was released at ${at} (ledger #${r.seq})`;
    case "voided":
      return `was voided by a person at ${at} (ledger #${r.seq})`;
    default: {
      const expired = r.claim_expires_at ? `expired at ${r.claim_expires_at.toISOString()}` : "ended";
      return r.next_kind === "taken_over" ? `${expired} and was taken over by ${r.next_actor}` : expired;
    }
  }
}

export function claimGrantedText(kind: "claimed" | "renewed" | "taken_over", claim: Claim, seq: number, previous: Claim | null, claimId: string | undefined): string {
  const until = `until ${claim.expiresAt.toISOString()} (ledger #${seq})`;
  const head =
    kind === "renewed"
      ? `Renewed your claim on ${keyText(claim)} ${until}.`
      : kind === "taken_over"
        ? `Took over ${keyText(claim)} ${until}: the claim of ${previous?.holder} expired at ${previous?.expiresAt.toISOString()}.`
        : `Claimed ${keyText(claim)} ${until}.`;
  const id = claimId ? ` Your claim id: ${claimId}. Keep it and pass it as claimId to ledger_record (or ledger_release, or ledger_claim to renew).` : "";
  return `${head}${id} Execute it now, then call ledger_record with the evidence URL; if you give up, call ledger_release.`;
}

export function eventLine(e: LedgerEvent): string {
  const details = [
    e.evidence ? `evidence ${e.evidence}` : "",
    e.claimExpiresAt ? `until ${e.claimExpiresAt.toISOString()}` : "",
    e.note ? `note: ${e.note}` : "",
    e.reason ? `reason: ${e.reason}` : "",
  ].filter((s) => s !== "");
  const claim = e.claimRef ? ` [claim ${shortRef(e.claimRef)}]` : "";
  return `#${e.seq} ${e.at.toISOString()} ${e.kind} ${keyText(e)} by ${e.actor}${claim}${details.length ? ` (${details.join("; ")})` : ""}`;
}
