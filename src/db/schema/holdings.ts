// What a database holds, read once at start-up to decide two things: whether a
// first start may create the owner (only on a database where nobody can sign
// in and nothing is stored yet), and whether the database is the remains of a
// restore that failed partway (data, but no agents: every token would be
// refused, and a new owner would take over), which the service refuses.
// Presence only (each probe reads at most one row), whatever the tables hold.
import type { Queryable } from "../core/database.js";

export interface Holdings {
  agents: boolean;
  /** An agent of kind human: someone can sign in to the console. */
  humans: boolean;
  /** What is stored besides agents, by kind (empty: nothing). */
  stored: string[];
}

const HOLDINGS = `
  select exists (select 1 from agents) as agents,
         exists (select 1 from agents where kind = 'human') as humans,
         array_remove(array[
           case when exists (select 1 from agent_tokens) then 'tokens' end,
           case when exists (select 1 from facts) then 'facts' end,
           case when exists (select 1 from ledger_events) then 'ledger events' end,
           case when exists (select 1 from graph_entities) then 'graph entities' end], null) as stored`;

export async function readHoldings(db: Queryable): Promise<Holdings> {
  const row = (await db.query<Holdings>(HOLDINGS)).rows[0]!;
  return { agents: row.agents, humans: row.humans, stored: row.stored };
}

/** The refusal of a database with data but no agents, naming the likely cause and the fix; undefined when it is fine. */
export function dataWithoutAgents(holdings: Holdings): string | undefined {
  if (holdings.agents || holdings.stored.length === 0) return undefined;
  return (
    `This database holds ${holdings.stored.join(", ")} but no agents, so every token would be refused. ` +
    "That is what a restore that failed partway leaves (pg_restore reported errors, e.g. on the table agents). " +
    "Restore the backup again into an empty database and check that pg_restore reports no error (docs/operations.md, Backups), then start the service on it."
  );
}
