// Memory health, as /metrics reports it by scope: drafts waiting for review,
// how long the oldest has waited, and stale facts (confirmed, not reviewed for
// STALE_AFTER_DAYS). Read at each scrape from partial indexes that hold only
// drafts (facts_drafts) and only confirmed facts (facts_confirmed_status_at),
// so a scrape reads the backlog and the stale facts, never the whole table.
import type { Queryable } from "../db/database.js";

export interface ScopeHealth {
  scope: string;
  drafts: number;
  oldestDraftSeconds: number;
  stale: number;
}

const HEALTH = `
  with drafts as (
    select scope, count(*)::int as drafts, extract(epoch from now() - min(updated_at))::float8 as oldest
      from facts where status = 'draft' group by scope
  ), stale as (
    select scope, count(*)::int as stale
      from facts where status = 'confirmed' and status_at < now() - make_interval(days => $1::int) group by scope
  )
  select coalesce(d.scope, s.scope) as scope, coalesce(d.drafts, 0) as drafts, coalesce(d.oldest, 0) as oldest, coalesce(s.stale, 0) as stale
    from drafts d full join stale s on s.scope = d.scope
   order by 1`;

export async function memoryHealth(db: Queryable, staleAfterDays: number): Promise<ScopeHealth[]> {
  const rows = (await db.query<{ scope: string; drafts: number; oldest: number; stale: number }>(HEALTH, [staleAfterDays])).rows;
  return rows.map((r) => ({ scope: r.scope, drafts: r.drafts, oldestDraftSeconds: Math.round(r.oldest), stale: r.stale }));
}
