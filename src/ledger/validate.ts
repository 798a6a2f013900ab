// Input rules of the ledger, checked before anything touches the database so a
// bad call is refused with a message naming the field and nothing is written.
// The migration's check constraints hold the same rules as a backstop.
import { invalid } from "../errors.js";
import { checkChars, checkWholeNumber, LEDGER_LIMITS } from "../limits.js";
import { clip, CONTROL_CHARS, isStorable, unstorableTextMessage } from "../text.js";

/** How much of a malformed URL or time a refusal quotes. */
const QUOTED_MAX_CHARS = 80;

/**
 * How an action is spelled (snake_case or kebab-case); normalizeAction folds "-"
 * to "_" before storing. The handoff prompt checks its argument with it too. The
 * database's am_ledger_valid_action holds the same rule as a backstop.
 */
export const ACTION_PATTERN = /^[a-z0-9]+([_-][a-z0-9]+)*$/;

// A stored value that differs from the hashed one would break the chain, so text
// Postgres cannot hold exactly is refused (the CLI import reaches these rules
// without the MCP layer's check).
function assertStorable(field: string, text: string): void {
  if (!isStorable(text)) throw invalid(unstorableTextMessage(field));
}

export interface LedgerKey {
  action: string;
  target: string;
}

/** The one spelling of an action (lower case, "-" as "_"), without normalizeAction's refusals. */
export function actionSpelling(raw: string): string {
  return raw.trim().toLowerCase().replace(/-/g, "_");
}

/**
 * Actions are folded to one spelling, lower-case snake_case: `Deploy-Prod`,
 * `deploy-prod` and `deploy_prod` are the same action, so a change of spelling
 * can never make an executed action look new.
 */
export function normalizeAction(raw: string): string {
  const action = actionSpelling(raw);
  if (action === "") throw invalid("action must not be empty: name the operation, e.g. publish_qiita or deploy-prod.");
  checkChars("action", action, LEDGER_LIMITS.keyMaxChars);
  if (!ACTION_PATTERN.test(action)) {
    throw invalid(
      `action "${action}" is not a snake_case or kebab-case identifier: use letters, digits and single "_" or "-" between words (e.g. publish_qiita, deploy-prod).`,
    );
  }
  return action;
}

/** Targets are case-sensitive (ids, URLs); only surrounding blanks are removed. */
export function normalizeTarget(raw: string): string {
  // NFC: "café" typed with a combining accent is the same target as with "é".
  const target = raw.trim().normalize("NFC");
  if (target === "") throw invalid("target must not be empty: name what the action applies to, e.g. an article id or an environment.");
  checkChars("target", target, LEDGER_LIMITS.keyMaxChars);
  if (CONTROL_CHARS.test(target)) throw invalid("target must not contain control characters (line breaks, tabs…).");
  assertStorable("target", target);
  return target;
}

export function normalizeKey(input: { action: string; target: string }): LedgerKey {
  return { action: normalizeAction(input.action), target: normalizeTarget(input.target) };
}

/**
 * Evidence is where anyone can see the result: an absolute http(s) URL. Stored in
 * its parsed form (URL.href), so an identical retry compares equal. Credentials
 * in the URL are refused: the ledger can never be edited to remove them.
 */
export function normalizeEvidence(raw: string): string {
  const text = raw.trim();
  const hint = "evidence must be an absolute http:// or https:// URL where the result can be seen (e.g. https://qiita.com/you/items/abc123)";
  if (text === "") throw invalid(`${hint}; it is empty.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${hint}; "${clip(text, QUOTED_MAX_CHARS)}" is not an absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(`${hint}; "${clip(text, QUOTED_MAX_CHARS)}" uses ${url.protocol}.`);
  if (url.hostname === "") throw invalid(`${hint}; "${clip(text, QUOTED_MAX_CHARS)}" has no host.`);
  if (url.username !== "" || url.password !== "") throw invalid("evidence must not contain a user name or password: the ledger keeps it forever.");
  checkChars("evidence", url.href, LEDGER_LIMITS.evidenceMaxChars);
  return url.href;
}

/** An optional free text: blank means absent. */
export function normalizeNote(raw: string | undefined): string | null {
  const note = raw?.trim() ?? "";
  if (note === "") return null;
  assertStorable("note", note);
  checkChars("note", note, LEDGER_LIMITS.noteMaxChars);
  return note;
}

export function normalizeReason(raw: string): string {
  const reason = raw.trim();
  if (reason === "") throw invalid("reason must not be empty: say why you give up the claim (it goes into the ledger).");
  assertStorable("reason", reason);
  checkChars("reason", reason, LEDGER_LIMITS.reasonMaxChars);
  return reason;
}

export function normalizeTtl(raw: number | undefined): number {
  return checkWholeNumber("ttl_seconds", raw, LEDGER_LIMITS.ttlDefaultSeconds, LEDGER_LIMITS.ttlMinSeconds, LEDGER_LIMITS.ttlMaxSeconds);
}

export function normalizeLimit(raw: number | undefined): number {
  return checkWholeNumber("limit", raw, LEDGER_LIMITS.listDefault, 1, LEDGER_LIMITS.listMax);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/i;

/** `since`: an ISO 8601 date or date-time with an explicit zone (a bare date means 00:00 UTC). */
export function parseSince(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  const time = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
  // Postgres timestamps run from 4713 BC; years 1-9999 are all a ledger can mean.
  const year = Number.isNaN(time) ? 0 : new Date(time).getUTCFullYear();
  if (Number.isNaN(time) || year < 1 || year > 9999) {
    throw invalid(
      `since must be an ISO 8601 date (midnight UTC) or a time with a zone, between the years 1 and 9999, e.g. 2025-06-01 or 2025-06-01T09:00:00Z, got "${clip(text, QUOTED_MAX_CHARS)}".`,
    );
  }
  return new Date(time);
}

