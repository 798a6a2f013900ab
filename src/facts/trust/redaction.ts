// Redaction: a human with write access to a fact's scope (or an administrator)
// removes the text of one version for good. The version's description and
// body become REDACTED_TEXT in every table that held them (the version, the
// fact's current row with its search and duplicate-check columns, the recall
// vocabulary), and so do the reasons its reviews gave (which may quote it);
// a tombstone says who redacted which version, when and why.
// The database allows the overwrite only once the tombstone exists
// (am_fact_version_change, am_check_fact_change).
import type { Caller } from "../../auth/caller.js";
import { assertMayRedact, validateScope } from "../../auth/scopes.js";
import type { Database, Queryable } from "../../db/core/database.js";
import { conflict, invalid, notFound } from "../../errors.js";
import { REFUSING_GUARD, type SecretGuard } from "../../secrets/guard.js";
import { likePattern, REDACTED_TEXT } from "../../text.js";
import { isoTime } from "../model.js";
import { validateName, validateReason } from "../rules.js";


interface Redaction {
  scope: string;
  name: string;
  version: number;
  by: string;
  at: string;
  reason: string;
}

/** "scope/name@version", as the CLI takes it. */
export function parseVersionRef(ref: string): { scope: string; name: string; version: number } {
  const m = /^([^/@\s]+)\/([^/@\s]+)@(\d+)$/.exec(ref.trim());
  if (!m) throw invalid(`"${ref}" is not SCOPE/NAME@VERSION (e.g. shared/deploy-window@2): name the scope, the fact and the version to redact.`);
  return { scope: validateScope(m[1]!), name: validateName(m[2]!), version: Number(m[3]) };
}

const LOCK_FACT = `select id, version from facts where scope = $1::text and name = $2::text for update`;
const RECORD = `
  insert into fact_redactions (fact_id, version, redacted_by, reason) values ($1::bigint, $2::int, $3::bigint, $4::text)
  on conflict do nothing returning redacted_at`;
const EARLIER = `
  select a.name as by, r.redacted_at as at from fact_redactions r join agents a on a.id = r.redacted_by
   where r.fact_id = $1::bigint and r.version = $2::int`;
// The vocabulary words (am_near_words) of the text being removed, read before it goes.
const WORDS = `
  select am_near_words(am_fact_search_text(f.name, v.description, v.body)) as words
    from fact_versions v join facts f on f.id = v.fact_id where v.fact_id = $1::bigint and v.version = $2::int`;
const OVERWRITE_VERSION = `update fact_versions set description = $3::text, body = $3::text where fact_id = $1::bigint and version = $2::int`;
// The current version's review reason goes with it: a reviewer may have quoted the text.
const OVERWRITE_CURRENT = `
  update facts set description = $2::text, body = $2::text, search_cjk = ''::tsvector, search_cjk_head = ''::tsvector,
                   status_reason = case when status_reason is null then null else $2::text end
   where id = $1::bigint`;
const OVERWRITE_REASONS = `update fact_events set reason = $3::text where fact_id = $1::bigint and version = $2::int and reason is not null`;
// Words no fact of the scope holds any more leave the vocabulary (an index
// lookup per word on facts_exact_trgm, the same expression). $2 the words,
// $3 each one's substring pattern (likePattern).
const FORGET_WORDS = `
  delete from fact_words w
   using unnest($2::text[], $3::text[]) as x(word, pattern)
   where w.scope = $1::text and w.word = x.word
     and not exists (select 1 from facts f where f.scope = $1::text and am_fact_search_text(f.name, f.description, f.body) ilike x.pattern)`;

const RESTORE = `
  insert into fact_redactions (fact_id, version, redacted_by, redacted_at, reason)
  select $1::bigint, r.version, r.by, r.at, r.reason
    from unnest($2::int[], $3::bigint[], $4::timestamptz[], $5::text[]) as r (version, by, at, reason)
  on conflict do nothing`;

/** An import's tombstones (an export's Redactions section), for versions whose text the file already holds as "[redacted]". */
export async function restoreRedactions(tx: Queryable, factId: number, redactions: Array<{ version: number; byId: number; at: string; reason: string }>): Promise<void> {
  if (redactions.length === 0) return;
  await tx.query(RESTORE, [factId, redactions.map((r) => r.version), redactions.map((r) => r.byId), redactions.map((r) => r.at), redactions.map((r) => r.reason)]);
}

export async function redactFactVersion(
  db: Database,
  caller: Caller,
  input: { scope: string; name: string; version: number; reason: string },
  options: { secrets?: SecretGuard } = {},
): Promise<Redaction> {
  const scope = validateScope(input.scope);
  const name = validateName(input.name);
  const reason = validateReason(input.reason);
  assertMayRedact(caller, scope);
  // The tombstone's reason is kept for good: it must not hold what is being removed.
  await (options.secrets ?? REFUSING_GUARD).check([["reason", reason]]);
  return db.transaction(async (tx) => {
    const fact = (await tx.query<{ id: number; version: number }>(LOCK_FACT, [scope, name])).rows[0];
    if (!fact) throw notFound(`No fact named "${name}" in scope "${scope}" to redact.`);
    if (!Number.isInteger(input.version) || input.version < 1 || input.version > fact.version) {
      throw notFound(`"${name}" in scope "${scope}" has versions 1 to ${fact.version}; there is no version ${input.version} to redact.`);
    }
    const recorded = (await tx.query<{ redacted_at: Date }>(RECORD, [fact.id, input.version, caller.agentId, reason])).rows[0];
    if (!recorded) {
      const earlier = (await tx.query<{ by: string; at: Date }>(EARLIER, [fact.id, input.version])).rows[0]!;
      throw conflict(`Version ${input.version} of "${name}" (scope ${scope}) was already redacted by ${earlier.by} at ${isoTime(earlier.at)}; its text is gone.`);
    }
    const words = (await tx.query<{ words: string[] | null }>(WORDS, [fact.id, input.version])).rows[0]?.words ?? [];
    await tx.query(OVERWRITE_VERSION, [fact.id, input.version, REDACTED_TEXT]);
    await tx.query(OVERWRITE_REASONS, [fact.id, input.version, REDACTED_TEXT]);
    if (input.version === fact.version) await tx.query(OVERWRITE_CURRENT, [fact.id, REDACTED_TEXT]);
    if (words.length > 0) await tx.query(FORGET_WORDS, [scope, words, words.map(likePattern)]);
    return { scope, name, version: input.version, by: caller.name, at: isoTime(recorded.redacted_at), reason };
  });
}
