// One line of a ledger.jsonl, read and validated: either a record of
// `ledger export` (every field, hashes included; the hash is recomputed so an
// edited line is caught) or a line of the seeds' file-based ledger
// ({action, target, evidence, actor, at}: an executed action).
import * as z from "zod/v4";
import { validateAgentName } from "../auth/scopes.js";
import { invalid } from "../errors.js";
import { EVENT_KINDS, eventHash, type EventKind, normalizeEvidence, normalizeKey, normalizeNote, normalizeReason, parseSince } from "../ledger/index.js";
import { isCanonicalTime } from "./model.js";

export interface LedgerLine {
  kind: EventKind;
  action: string;
  target: string;
  /** The original actor's name; kept in the row even when mapped to --as. */
  actor: string;
  at: Date;
  evidence: string | null;
  note: string | null;
  reason: string | null;
  claimExpiresAt: Date | null;
  /** The reference of the event's claim, when it has one (never the claim's id). */
  claimRef: string | null;
  /** seq, hashes of an exported record (for the chain-continuity check). */
  exported: { seq: number; prevHash: string; hash: string } | null;
}

const time = z.string().refine(isCanonicalTime, { message: "must be an ISO 8601 UTC time with milliseconds" });
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, { message: "must be 64 hex digits" });

const ExportedRecord = z.strictObject({
  seq: z.number().int().min(1),
  kind: z.enum(EVENT_KINDS),
  action: z.string(),
  target: z.string(),
  actor: z.string(),
  at: time,
  evidence: z.string().nullable(),
  note: z.string().nullable(),
  reason: z.string().nullable(),
  claimExpiresAt: time.nullable(),
  prevHash: hex64,
  hash: hex64,
  claimRef: hex64.nullable().optional(),
});

const SeedRecord = z.strictObject({
  action: z.string(),
  target: z.string(),
  evidence: z.string(),
  actor: z.string(),
  at: z.string(),
  note: z.string().optional(),
});

const CLAIM_KINDS: readonly EventKind[] = ["claimed", "renewed", "taken_over"];

export function parseLedgerLine(text: string): LedgerLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("not a JSON object (each line of ledger.jsonl is one JSON object).");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw invalid("not a JSON object.");
  return "hash" in value ? exportedLine(value) : seedLine(value);
}

function check<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw invalid(`${issue.path.length > 0 ? `"${issue.path.join(".")}" ` : ""}${issue.message}.`);
  }
  return result.data;
}

function exportedLine(value: unknown): LedgerLine {
  const r = check(ExportedRecord, value);
  const at = new Date(r.at);
  const claimExpiresAt = r.claimExpiresAt === null ? null : new Date(r.claimExpiresAt);
  const claimRef = r.claimRef ?? null;
  const { hash, ...content } = r;
  if (eventHash({ ...content, at, claimExpiresAt, claimRef }) !== hash) {
    throw invalid(`record #${r.seq} does not match its hash: it was changed after it was exported. Restore the original line.`);
  }
  return normalized({ ...r, at, claimExpiresAt, claimRef, exported: { seq: r.seq, prevHash: r.prevHash, hash } });
}

function seedLine(value: unknown): LedgerLine {
  const r = check(SeedRecord, value);
  let at: Date;
  try {
    at = parseSince(r.at)!;
  } catch {
    throw invalid(`"at" must be an ISO 8601 time with a zone, e.g. 2025-06-01T09:00:00.000Z, got ${JSON.stringify(r.at)}.`);
  }
  return normalized({ kind: "executed", ...r, at, note: r.note ?? null, reason: null, claimExpiresAt: null, claimRef: null, exported: null });
}

/** How far ahead of this machine's clock an imported event may be dated. */
const FUTURE_TOLERANCE_MS = 60 * 60 * 1000;

/** The ledger tools' own rules (ledger/validate.ts) and the table's constraints, with readable messages. */
function normalized(r: LedgerLine): LedgerLine {
  const key = normalizeKey(r);
  validateAgentName(r.actor);
  const executed = r.kind === "executed";
  if (executed !== (r.evidence !== null)) throw invalid(executed ? "an executed record needs evidence (an http(s) URL)." : `a ${r.kind} record has no evidence.`);
  const isClaim = CLAIM_KINDS.includes(r.kind);
  if (isClaim !== (r.claimExpiresAt !== null)) throw invalid(isClaim ? `a ${r.kind} record needs claimExpiresAt.` : `a ${r.kind} record has no claimExpiresAt.`);
  if (r.claimExpiresAt && r.claimExpiresAt.getTime() <= r.at.getTime()) throw invalid("claimExpiresAt must be after at.");
  if ((r.kind === "released" || r.kind === "taken_over" || r.kind === "voided") && r.reason === null) throw invalid(`a ${r.kind} record needs a reason.`);
  // A ledger records what already happened. An event dated later than it is
  // imported would also escape ledger_list's `since`, which starts its read at
  // the events recorded in the hour before it (am_ledger_page): an hour of clock
  // difference between machines is allowed.
  if (r.at.getTime() > Date.now() + FUTURE_TOLERANCE_MS) {
    throw invalid(`"at" ${r.at.toISOString()} is in the future (this machine's clock says ${new Date().toISOString()}): a ledger records what already happened. Check the record's time or this machine's clock.`);
  }
  return {
    ...r,
    ...key,
    // Millisecond precision, as the ledger stores (and hashes) times.
    at: new Date(Math.trunc(r.at.getTime())),
    evidence: r.evidence === null ? null : normalizeEvidence(r.evidence),
    note: normalizeNote(r.note ?? undefined),
    reason: r.reason === null ? null : normalizeReason(r.reason),
  };
}
