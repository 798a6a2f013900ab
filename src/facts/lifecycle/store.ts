// Writing facts: storing versions and promoting them through the lifecycle.
// Read-modify-write happens in one transaction with the fact row locked, so
// racing agents serialize and the loser sees the winner's result.
import type { Caller } from "../../auth/caller.js";
import { assertCanWrite, readableScopes, SHARED_SCOPE, validateScope } from "../../auth/scopes.js";
import type { Database } from "../../db/core/database.js";
import { withDeadlockRetry } from "../../db/core/retry.js";
import { conflict, invalid, notFound } from "../../errors.js";
import { REFUSING_GUARD, type SecretGuard } from "../../secrets/guard.js";
import { factWordsParams } from "../cjk-words.js";
import { staleVersion } from "../messages.js";
import { type FactSummary, isoTime, type SimilarFact, type SummaryRow, toSummary } from "../model.js";
import { charCount, SIMILAR_MAX, SIMILAR_THRESHOLD, type FactType, validateBody, validateDescription, validateName, validateType, validateVersion } from "../rules.js";
import { prepared } from "../prepared.js";
import * as sql from "../sql.js";
import { resolveSuperseded } from "../trust/supersession.js";

export interface StoreInput {
  name: string;
  description: string;
  type: FactType;
  body: string;
  scope?: string | undefined;
  version?: number | undefined;
  /** The fact this new one replaces ("name" in its scope, or "scope/name"); only when creating. */
  supersedes?: string | undefined;
}

export interface StoreResult {
  /** "unchanged": the content equals the current version, which stays as it is (status included). */
  outcome: "created" | "updated" | "unchanged";
  fact: FactSummary;
  previousVersion: number | null;
  /** Only for a created fact that replaces another: that fact, as "scope/name". */
  supersedes?: string;
  /** Only for a created fact: readable facts that may say the same (best first, at most SIMILAR_MAX). */
  similar?: SimilarFact[];
}

interface FactLimits {
  bodyMaxChars: number;
  /** List facts much like a newly created one (default true). */
  duplicateWarning?: boolean;
  /** Longest the duplicate lookup may run on Postgres (FACT_DUPLICATE_TIMEOUT_MS); unset: the database's statement timeout. */
  duplicateTimeoutMs?: number;
  /** The secret guard the texts pass (default: refusing, uncounted). */
  secrets?: SecretGuard;
}

interface WrittenRow {
  id: number;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type LockedRow = SummaryRow & { body: string; author_id: number; supersedes_id: number | null };

export async function storeFact(db: Database, caller: Caller, input: StoreInput, limits: FactLimits): Promise<StoreResult> {
  const name = validateName(input.name);
  const scope = validateScope(input.scope ?? SHARED_SCOPE);
  const type = validateType(input.type);
  const description = validateDescription(input.description);
  const body = validateBody(input.body, limits.bodyMaxChars);
  const version = validateVersion(input.version);
  assertCanWrite(caller, scope);
  if (input.supersedes !== undefined && version !== undefined) {
    throw invalid(`supersedes is given when a fact is created, not with version: store a new fact that replaces "${input.supersedes}".`);
  }
  // After the checks that cost nothing (lengths, permission): the scan reads every character.
  await (limits.secrets ?? REFUSING_GUARD).check([
    ["name", name],
    ["description", description],
    ["body", body],
  ]);
  const superseded = input.supersedes === undefined ? undefined : await resolveSuperseded(db, caller, scope, name, input.supersedes);

  // The answer for a version just written: a draft by the caller.
  const written = (row: WrittenRow): FactSummary => ({
    name,
    scope,
    type,
    status: "draft",
    description,
    author: caller.name,
    version: row.version,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    statusBy: null,
    statusAt: null,
    statusReason: null,
    bodyChars: charCount(body),
  });

  if (version === undefined) {
    // The duplicate warning's lookup runs beside the insert, on another
    // connection, instead of after it: it needs nothing the insert writes, and
    // its 2-4 ms at 100,000 facts then overlap the insert's instead of adding
    // to them (docs/hygiene.md). It is advice: if it fails (connection lost,
    // timeout) the answer must still say "created", never an error that reads
    // as "nothing was written" (the reliability suite caught exactly that).
    const lookup = limits.duplicateWarning === false ? undefined : similarFacts(db, caller, scope, name, description, limits.duplicateTimeoutMs).catch(() => []);
    // One statement: the unique (name, scope) key decides between racing creators.
    // Retried if Postgres broke a deadlock by failing it (an import holding new
    // words of this fact in its transaction; src/db/core/retry.ts).
    const created = (
      await withDeadlockRetry(() => db.query<WrittenRow>(sql.CREATE_FACT, [scope, name, description, type, body, caller.agentId, null, ...factWordsParams(name, description, body), superseded?.id ?? null], prepared("create")))
    ).rows[0];
    if (created) {
      const similar = (await lookup) ?? [];
      // Recall tells a hit of this draft from the reviewed fact it copies (read.ts
      // addDraftContext). Advice too: a failure here must not read as "not written".
      const confirmed = similar.filter((f) => f.status === "confirmed");
      if (confirmed.length > 0) {
        await db
          .query(sql.RECORD_COPIES, [created.id, confirmed.map((f) => f.scope), confirmed.map((f) => f.name), confirmed.map((f) => f.similarity)], prepared("record_copies"))
          .catch(() => undefined);
      }
      return {
        outcome: "created",
        fact: written(created),
        previousVersion: null,
        ...(superseded ? { supersedes: `${superseded.scope}/${superseded.name}` } : {}),
        ...(similar.length > 0 ? { similar } : {}),
      };
    }
    const current = (await db.query<{ version: number; status: string; author: string; updated_at: Date }>(sql.CURRENT_VERSION, [name, scope], prepared("current_version"))).rows[0];
    throw conflict(
      `A fact named "${name}" already exists in scope "${scope}": version ${current?.version ?? "?"} by ${current?.author ?? "?"} (${current?.status ?? "?"}). ` +
        `To change it, read it with memory_get and call memory_store again with version: ${current?.version ?? "?"}; to record a different fact, choose another name.`,
      { currentVersion: current?.version, author: current?.author },
    );
  }

  // Retried if Postgres broke a deadlock by failing it (src/db/core/retry.ts).
  return withDeadlockRetry(() =>
    db.transaction(async (tx) => {
      const row = (await tx.query<LockedRow>(sql.LOCK_FACT_IN_SCOPE, [name, scope], prepared("lock_in_scope"))).rows[0];
      if (!row) {
        throw notFound(`No fact named "${name}" in scope "${scope}" to update with version ${version}. To create it, call memory_store without version.`);
      }
      if (row.version !== version) {
        throw staleVersion(name, scope, version, { version: row.version, author: row.author, updatedAt: isoTime(row.updated_at) });
      }
      // Storing identical content again is a retry, not a change: it must not
      // undo a review by turning a confirmed fact back into a draft.
      if (row.description === description && row.type === type && row.body === body) {
        return { outcome: "unchanged" as const, fact: toSummary(row), previousVersion: null };
      }
      const updated = (await tx.query<WrittenRow>(sql.UPDATE_FACT, [row.id, description, type, body, caller.agentId, row.status, null, ...factWordsParams(name, description, body)], prepared("update"))).rows[0]!;
      return { outcome: "updated" as const, fact: written(updated), previousVersion: row.version };
    }),
  );
}

/**
 * The duplicate warning: readable facts whose name and description are most
 * like the new fact's (memory_store; the console's review queue, for each draft). Only the caller's readable scopes are searched, so the
 * warning never reveals a fact the caller could not recall.
 */
export async function similarFacts(db: Database, caller: Caller, scope: string, name: string, description: string, timeoutMs?: number): Promise<SimilarFact[]> {
  const readable = readableScopes(caller);
  const params = [`${name} ${description}`, SIMILAR_THRESHOLD, readable.all, readable.scopes, scope, name, SIMILAR_MAX, description];
  // Among many look-alike facts the trigram index hands over a candidate per
  // look-alike, so the lookup grows with them (a templated corpus of 100,000:
  // 200-300 ms). Advice must not slow every store that much: on Postgres it
  // runs under its own statement timeout, and past it the store answers
  // without the warning. In one round trip (queryBounded): run in a transaction
  // with SET LOCAL, the two extra round trips cost as much as the lookup itself
  // once the index's pending list was kept short. Not bounded on the embedded
  // database, where a statement past its timeout restarts the database's worker.
  const result =
    timeoutMs !== undefined ? await db.queryBounded<SimilarFact>(timeoutMs, sql.SIMILAR_FACTS, params, prepared("similar")) : await db.query<SimilarFact>(sql.SIMILAR_FACTS, params, prepared("similar"));
  return result.rows.map((r) => ({ ...r, similarity: Math.round(r.similarity * 100) / 100 }));
}
