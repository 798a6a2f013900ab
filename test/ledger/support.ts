// Helpers shared by the ledger tests: moving time in the database instead of
// sleeping, and editing rows behind the append-only trigger's back.
import type { Database, Queryable } from "../../src/db/core/database.js";
import { type Actor, claimLedger, type LedgerPolicy, type RecordResult, recordLedger } from "../../src/ledger/store.js";

/** Makes the current claim on a key expired (as if its ttl had passed). */
export async function expireClaim(db: Queryable, action: string, target: string): Promise<void> {
  const r = await db.query(
    `update ledger_claims set claimed_at = now() - interval '20 seconds', expires_at = now() - interval '10 seconds'
      where action = $1::text and target = $2::text`,
    [action, target],
  );
  if (r.rowCount !== 1) throw new Error(`no claim on ${action} ${target} to expire`);
}

export async function countEvents(db: Queryable, kind?: string): Promise<number> {
  const r = await db.query<{ n: number }>(`select count(*)::int as n from ledger_events where $1::text is null or kind = $1::text`, [kind ?? null]);
  return r.rows[0]!.n;
}

/**
 * Runs `sql` as a superuser with triggers switched off for the transaction
 * (session_replication_role = replica): what an attacker with database access
 * could do, and what verify must catch.
 */
export async function tamper(db: Database, sql: string, params: unknown[] = []): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("set local session_replication_role = replica");
    await tx.query(sql, params);
  });
}

/** The protocol's claim, then its record: a record needs the recorder's own claim. */
export async function claimAndRecord(
  db: Database,
  actor: Actor,
  input: { action: string; target: string; evidence: string; note?: string },
  policy?: LedgerPolicy,
): Promise<RecordResult> {
  await claimLedger(db, actor, { action: input.action, target: input.target }, policy);
  return recordLedger(db, actor, input, policy);
}
