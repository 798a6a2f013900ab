// What recall receipts tell (src/facts/trust/receipt-writer.ts writes them): a fact's readers, for
// the people who answer for it; the readers a withdrawal reaches, for the
// reviewer who withdraws it; and, for each such reader, one notice at its next
// recall, only while it may still read the fact's scope.
import type { AppDeps } from "../../app-deps.js";
import type { Caller } from "../../auth/caller.js";
import { canWrite, isHuman, readableScopes } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { isoTime } from "../model.js";
import { prepared } from "../prepared.js";

/** Readers one answer names at most (the most recent first); `more` counts the rest. */
export const READERS_SHOWN = 20;
/** Notices one answer carries at most; the rest come with the next recalls. */
const NOTICES_PER_ANSWER = 5;

export interface FactReader {
  agent: string;
  /** How many times it was served the fact since `firstAt` (within RECEIPTS_RETENTION_DAYS). */
  reads: number;
  firstAt: string;
  lastAt: string;
  /** The versions it was served, oldest first. */
  versions: number[];
}

export interface FactReaders {
  readers: FactReader[];
  /** Readers beyond READERS_SHOWN. */
  more: number;
}

const READERS = `
  select a.name as agent, r.reads::int as reads, r.first_at, r.last_at, r.versions, count(*) over ()::int as total
    from facts f
    join fact_readers r on r.fact_id = f.id
    join agents a on a.id = r.agent_id
   where f.scope = $1::text and f.name = $2::text
   order by r.last_at desc, a.name
   limit $3::int`;

/** Who may see a fact's readers: a human, or a reviewer (one who may write the fact's scope). */
export const maySeeReaders = (caller: Caller, scope: string): boolean => isHuman(caller) || canWrite(caller, scope);

/**
 * The agents that were served a fact (the caller has already read it), most
 * recent first; undefined when the caller may not see them (maySeeReaders).
 * Bounded by the number of readers shown: fact_readers holds one row per reader.
 */
export async function factReaders(db: Queryable, caller: Caller, fact: { scope: string; name: string }): Promise<FactReaders | undefined> {
  if (!maySeeReaders(caller, fact.scope)) return undefined;
  const rows = (
    await db.query<{ agent: string; reads: number; first_at: Date | string; last_at: Date | string; versions: number[]; total: number }>(READERS, [fact.scope, fact.name, READERS_SHOWN], prepared("readers"))
  ).rows;
  const readers = rows.map((r) => ({ agent: r.agent, reads: r.reads, firstAt: isoTime(r.first_at), lastAt: isoTime(r.last_at), versions: r.versions }));
  return { readers, more: Math.max(0, (rows[0]?.total ?? 0) - rows.length) };
}

// The readers a deprecation just reached (am_fact_withdrawn wrote their notices
// with the deprecation event), inside the deprecating transaction: its event is
// the one stamped with the transaction's time (PROMOTE_FACT's now()).
const WITHDRAWAL_READERS = `
  select a.name, count(*) over ()::int as total
    from fact_withdrawal_notices n join agents a on a.id = n.agent_id
   where n.event_id = (select max(e.id) from fact_events e where e.fact_id = $1::bigint and e.kind = 'deprecated' and e.at = now())
   order by n.read_at desc, a.name
   limit $2::int`;

/** The agents that read a fact since it was last confirmed and will be told it was withdrawn (at most READERS_SHOWN, and how many in all). */
export async function withdrawalReaders(tx: Queryable, factId: number): Promise<{ names: string[]; total: number }> {
  const rows = (await tx.query<{ name: string; total: number }>(WITHDRAWAL_READERS, [factId, READERS_SHOWN])).rows;
  return { names: rows.map((r) => r.name), total: rows[0]?.total ?? 0 };
}

export interface WithdrawalNotice {
  /** "scope/name" of the withdrawn fact. */
  fact: string;
  /** The version the agent last read, and when (ISO 8601). */
  readVersion: number;
  readAt: string;
  reason: string;
  /** Its confirmed replacement ("scope/name"), when it was superseded by one the agent may read. */
  replacement?: string;
}

// The agent's unseen notices in scopes it may read now (am_in_scopes), oldest
// first; a notice of a scope it may not read stays unseen, and unread.
const PENDING_NOTICES = `
  select n.event_id, f.scope || '/' || f.name as fact, n.read_version, n.read_at, e.reason,
         case when s.id is not null and am_in_scopes(s.scope, $2::boolean, $3::text[]) then s.scope || '/' || s.name end as replacement
    from fact_withdrawal_notices n
    join facts f on f.id = n.fact_id
    join fact_events e on e.id = n.event_id
    left join facts s on s.id = f.superseded_by_id
   where n.agent_id = $1::bigint and n.seen_at is null and am_in_scopes(f.scope, $2::boolean, $3::text[])
   order by n.event_id
   limit $4::int`;

// Marks the notices seen that no other answer marked first: two answers of one
// agent that read the same notices both try, and the row lock makes the second
// wait for the first and then find them seen. Each notice is delivered once.
const MARK_SEEN = `
  update fact_withdrawal_notices set seen_at = now()
   where agent_id = $1::bigint and event_id = any($2::bigint[]) and seen_at is null
  returning event_id::text`;

/**
 * The caller's unseen withdrawal notices, read from the primary (notices are
 * written there, and marking them seen is a write). `markSeen` marks these seen
 * and returns the ones this call marked (the ones it may deliver); call it once
 * the answer that carries them is built.
 */
export async function pendingNotices(primary: Queryable, caller: Caller): Promise<{ notices: WithdrawalNotice[]; markSeen(): Promise<WithdrawalNotice[]> }> {
  const readable = readableScopes(caller);
  const rows = (
    await primary.query<{ event_id: string | number; fact: string; read_version: number; read_at: Date | string; reason: string; replacement: string | null }>(
      PENDING_NOTICES,
      [caller.agentId, readable.all, readable.scopes, NOTICES_PER_ANSWER],
      prepared("pending_notices"),
    )
  ).rows;
  const byId = new Map(
    rows.map((r) => [
      String(r.event_id),
      { fact: r.fact, readVersion: r.read_version, readAt: isoTime(r.read_at), reason: r.reason, ...(r.replacement ? { replacement: r.replacement } : {}) },
    ]),
  );
  return {
    notices: [...byId.values()],
    markSeen: async () => {
      if (byId.size === 0) return [];
      const marked = new Set((await primary.query<{ event_id: string }>(MARK_SEEN, [caller.agentId, [...byId.keys()]])).rows.map((r) => r.event_id));
      return [...byId].filter(([id]) => marked.has(id)).map(([, notice]) => notice);
    },
  };
}

/** One notice as an agent reads it. */
export function noticeText(n: WithdrawalNotice): string {
  return (
    `A fact you read on ${n.readAt.slice(0, 10)}, ${n.fact} (version ${n.readVersion}), was withdrawn: ${n.reason}` +
    (n.replacement ? `; its replacement: ${n.replacement}.` : ". Do not act on it any more.")
  );
}

/**
 * The notices an answer carries (memory_recall, start-task), as text, started
 * beside the answer's own reads: `deliver()` resolves to them once the answer is
 * built, and marks them seen (counted in /metrics). A failure to read or mark
 * them costs the answer nothing: they come with a later one.
 */
export function startNotices(deps: Pick<AppDeps, "primary" | "metrics" | "logger" | "receipts">, caller: Caller): { deliver(): Promise<string[]> } {
  // No query unless the token check found one waiting (nearly always none).
  if (!caller.noticesWaiting) return { deliver: async () => [] };
  const pending = pendingNotices(deps.primary, caller).catch((error: unknown) => {
    deps.logger.warn({ err: error, agent: caller.name }, "reading withdrawal notices failed; they are shown with a later answer");
    return undefined;
  });
  return {
    async deliver() {
      const found = await pending;
      if (!found || found.notices.length === 0) return [];
      let delivered: WithdrawalNotice[];
      try {
        delivered = await found.markSeen();
      } catch (error) {
        // Not marked, so not delivered now: shown with a later answer rather than perhaps twice.
        deps.logger.warn({ err: error, agent: caller.name }, "marking withdrawal notices seen failed; they are shown with a later answer");
        return [];
      }
      if (delivered.length > 0) deps.metrics.noticesDelivered.inc(delivered.length);
      return delivered.map(noticeText);
    },
  };
}

/** "Read by" as a person or a reviewer reads it in memory_get. */
export function readersText(r: FactReaders): string {
  if (r.readers.length === 0) return "Read by: no agent within the receipts' retention.";
  const lines = r.readers.map((x) => `- ${x.agent}: ${x.reads} time${x.reads === 1 ? "" : "s"}, last ${x.lastAt}, version${x.versions.length === 1 ? "" : "s"} ${x.versions.join(", ")}`);
  return ["Read by (most recent first):", ...lines, ...(r.more > 0 ? [`… and ${r.more} more agents.`] : [])].join("\n");
}

/** One receipt as `agent-memory export --receipts` writes it (receipts.jsonl). */
export interface ExportedReceipt {
  at: string;
  agent: string;
  scope: string;
  name: string;
  version: number;
  status: string;
  via: string;
  /** How many times it was served from `at` on, within one window (RECEIPT_WINDOW_MS, src/limits.ts). */
  served: number;
}

const EXPORT_PAGE = 1000;
const RECEIPTS_PAGE = `
  select r.id, r.at, a.name as agent, f.scope, f.name, r.version, r.status, r.via, r.served
    from fact_receipts r join facts f on f.id = r.fact_id join agents a on a.id = r.agent_id
   where r.id > $1::bigint and ($2::text[] is null or f.scope = any($2::text[]))
   order by r.id
   limit $3::int`;

/** Every receipt kept (of these scopes, or all when null), oldest first, page by page; how many. */
export async function exportReceipts(db: Queryable, scopes: string[] | null, each: (r: ExportedReceipt) => Promise<void>): Promise<number> {
  let after = "0";
  let count = 0;
  for (;;) {
    const rows = (await db.query<{ id: string } & Omit<ExportedReceipt, "at"> & { at: Date | string }>(RECEIPTS_PAGE, [after, scopes, EXPORT_PAGE])).rows;
    for (const r of rows) await each({ at: isoTime(r.at), agent: r.agent, scope: r.scope, name: r.name, version: r.version, status: r.status, via: r.via, served: r.served });
    count += rows.length;
    if (rows.length < EXPORT_PAGE) return count;
    after = String(rows[rows.length - 1]!.id);
  }
}
