// Imports a ledger.jsonl into the hash chain. The file is one unit: every line
// is validated first, and one bad line means nothing from the file is written
// (a ledger with a hole in it would be worse than none). The records are then
// chained anew, in file order, with their original actor name and time.
import type { Queryable } from "../db/core/database.js";
import { DomainError, invalid } from "../errors.js";
import { type ImportFile, lineTooLongText } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import { appendImported, claimExpired, eventPresent, GENESIS_HASH, lockChainHead, readKey } from "../ledger/index.js";
import type { AgentMap } from "./agents.js";
import { type LedgerLine, parseLedgerLine } from "./ledger-lines.js";

export interface LineProblem {
  line: number;
  reason: string;
}

/** The file's non-blank lines; a line past IMPORT_FILES.ledger.maxLineBytes comes as an invalid one (its text never read). */
async function* lines(file: ImportFile): AsyncGenerator<{ line: number; text: string } | { line: number; tooLong: string }> {
  for await (const l of file.lines()) {
    if (l.tooLong) yield { line: l.number, tooLong: `${lineTooLongText(IMPORT_FILES.ledger)}; no line of a ledger export is that long: check the file.` };
    else if (l.text.trim() !== "") yield { line: l.number, text: l.text };
  }
}

/** A line's actor, if it names one, whatever else is wrong with the line (for the report's missing agents). */
function actorOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    const actor = value !== null && typeof value === "object" ? (value as { actor?: unknown }).actor : undefined;
    return typeof actor === "string" ? [actor] : [];
  } catch {
    return [];
  }
}

/** Pass 1: every line parsed and its actor mapped; nothing is written. */
export async function validateLedgerFile(file: ImportFile, agents: AgentMap, secrets: SecretGuard): Promise<{ invalid: LineProblem[]; warnings: string[] }> {
  const problems: LineProblem[] = [];
  const warnings: string[] = [];
  let previous: { seq: number; hash: string } | null = null;
  for await (const read of lines(file)) {
    if ("tooLong" in read) {
      problems.push({ line: read.line, reason: read.tooLong });
      continue;
    }
    const { line, text } = read;
    agents.note(actorOf(text));
    try {
      const record = parseLedgerLine(text);
      await secrets.check(stringsIn({ target: record.target, evidence: record.evidence, note: record.note, reason: record.reason }));
      agents.resolve(record.actor, "actor");
      const exported = record.exported;
      if (exported) {
        const expected = previous ? previous.hash : GENESIS_HASH;
        if (exported.prevHash !== expected) {
          warnings.push(
            `${previous ? `ledger.jsonl line ${line} (#${exported.seq}) does not link to the line before it (#${previous.seq})` : `ledger.jsonl starts at #${exported.seq}, not at #1`}: ` +
              `records of the exported chain are missing from the file.`,
          );
        }
        previous = exported;
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      problems.push({ line, reason: error.message });
    }
  }
  return { invalid: problems, warnings };
}

/**
 * Pass 2, inside the caller's transaction, which holds the chain head from the
 * start: nothing changes the ledger between a record's check and its append. A record already present is skipped: the same
 * kind/action/target/actor/at, or for an executed record any current record of
 * its (action, target), since an action is executed at most once until voided.
 * A voided record re-opens its key here as it did where it was exported.
 */
export async function appendLedgerFile(tx: Queryable, file: ImportFile, agents: AgentMap): Promise<{ appended: number; unchanged: number; warnings: string[] }> {
  let appended = 0;
  let unchanged = 0;
  const warnings: string[] = [];
  await lockChainHead(tx);
  for await (const read of lines(file)) {
    // Checked by validateLedgerFile; only a file changed since then gets here.
    if ("tooLong" in read) throw invalid(`ledger.jsonl line ${read.line}: ${read.tooLong}`);
    const { line, text } = read;
    const r = parseLedgerLine(text);
    const agent = agents.resolve(r.actor, "actor");
    const state = await readKey(tx, r);
    const alreadyHere = await eventPresent(tx, r);
    if (alreadyHere || (r.kind === "executed" && state.executed !== null)) {
      unchanged++;
      const e = state.executed;
      if (!alreadyHere && e && (e.actor !== r.actor || e.at.getTime() !== r.at.getTime() || e.evidence !== r.evidence)) {
        warnings.push(
          `ledger.jsonl line ${line}: ${r.action} for ${JSON.stringify(r.target)} is already recorded (by ${e.actor} at ${e.at.toISOString()}, evidence ${e.evidence}); the file's record (by ${r.actor} at ${r.at.toISOString()}) was skipped.`,
        );
      }
      continue;
    }
    // The event keeps its own time, not the clock's.
    await appendImported(tx, state, r, { agentId: agent.id, name: r.actor }, claimEffect(r, agent.id, state));
    appended++;
  }
  return { appended, unchanged, warnings };
}

/**
 * What the record does to the key's current claim. Replaying a whole ledger
 * into an empty database rebuilds the claims exactly. Into a live database, an
 * imported claim that has already expired never displaces another agent's live
 * claim (in a genuine ledger that case cannot arise: a claim by someone else
 * comes after the previous one expired, and expires later).
 */
function claimEffect(r: LedgerLine, agentId: number, state: Awaited<ReturnType<typeof readKey>>): "set" | "renew" | "drop" | "keep" {
  const claim = state.claim;
  if (r.kind === "executed") return "drop";
  // A void clears the key's record and claim itself (the database trigger does, as for a live void).
  if (r.kind === "voided") return "keep";
  if (r.kind === "released") return claim && claim.holderId === agentId ? "drop" : "keep";
  if (state.executed) return "keep";
  const own = claim !== null && claim.holderId === agentId;
  const importedExpired = r.claimExpiresAt !== null && r.claimExpiresAt.getTime() <= state.now.getTime();
  if (claim && !own && !claimExpired(claim, state.now) && importedExpired) return "keep";
  // A renewal keeps the claim's start; anything else makes the actor the holder from the event's time.
  return r.kind === "renewed" && own ? "renew" : "set";
}
