// Memory health: by scope, drafts waiting for review, how long the oldest has
// waited, and stale facts (confirmed, not reviewed for STALE_AFTER_DAYS). Read
// from partial indexes that hold only drafts (facts_drafts) and only confirmed
// facts (facts_confirmed_status_at), so a reading costs the backlog and the
// stale facts, never the whole table. Each reading (a /metrics scrape, the
// console's Health page) also keeps the day's sample for the page's chart.
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
  select coalesce(d.scope, s.scope) as scope, coalesce(d.drafts, 0) as drafts, round(coalesce(d.oldest, 0))::int as oldest, coalesce(s.stale, 0) as stale
    from drafts d full join stale s on s.scope = d.scope
   order by 1`;

// Today's sample replaces the one taken earlier today; samples older than 400 days go.
const SAMPLE = `
  with kept as (
    insert into memory_health_days (day, scope, drafts, oldest_draft_seconds, stale)
    select current_date, s.scope, s.drafts, s.oldest, s.stale
      from unnest($1::text[], $2::int[], $3::int[], $4::int[]) as s (scope, drafts, oldest, stale)
    on conflict (day, scope) do update set drafts = excluded.drafts, oldest_draft_seconds = excluded.oldest_draft_seconds, stale = excluded.stale
  ), emptied as (
    update memory_health_days set drafts = 0, oldest_draft_seconds = 0, stale = 0
     where day = current_date and scope <> all($1::text[])
  )
  delete from memory_health_days where day < current_date - 400`;

export async function memoryHealth(db: Queryable, staleAfterDays: number): Promise<ScopeHealth[]> {
  const rows = (await db.query<{ scope: string; drafts: number; oldest: number; stale: number }>(HEALTH, [staleAfterDays])).rows;
  await db.query(SAMPLE, [rows.map((r) => r.scope), rows.map((r) => r.drafts), rows.map((r) => r.oldest), rows.map((r) => r.stale)]);
  return rows.map((r) => ({ scope: r.scope, drafts: r.drafts, oldestDraftSeconds: r.oldest, stale: r.stale }));
}

export interface DaySample {
  day: string;
  drafts: number;
  stale: number;
}

const HISTORY = `
  select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(sum(h.drafts), 0)::int as drafts, coalesce(sum(h.stale), 0)::int as stale, count(h.day)::int as samples
    from generate_series(current_date - ($1::int - 1), current_date, interval '1 day') as d (day)
    left join memory_health_days h on h.day = d.day and ($2::boolean or h.scope = any($3::text[]))
   group by d.day order by d.day`;

/** The backlog and stale facts of the readable scopes, one sample a day over the last `days`; a day without a reading has none. */
export async function healthHistory(db: Queryable, readable: { all: boolean; scopes: string[] }, days: number): Promise<Array<DaySample | { day: string; missing: true }>> {
  const rows = (await db.query<DaySample & { samples: number }>(HISTORY, [days, readable.all, readable.scopes])).rows;
  return rows.map((r) => (r.samples === 0 ? { day: r.day, missing: true as const } : { day: r.day, drafts: r.drafts, stale: r.stale }));
}

const REVIEWS = `
  select a.name as agent, count(*) filter (where e.kind = 'confirmed')::int as confirmed, count(*) filter (where e.kind = 'deprecated')::int as deprecated
    from fact_events e join agents a on a.id = e.actor_id
   where e.kind in ('confirmed', 'deprecated') and e.at > now() - make_interval(days => $1::int)
     and ($2::boolean or e.scope = any($3::text[]))
   group by a.name order by count(*) desc, a.name limit 20`;

/** Who reviewed how much in the readable scopes over the last `days` (the 20 busiest). */
export async function reviewsByAgent(db: Queryable, readable: { all: boolean; scopes: string[] }, days: number): Promise<Array<{ agent: string; confirmed: number; deprecated: number }>> {
  return (await db.query<{ agent: string; confirmed: number; deprecated: number }>(REVIEWS, [days, readable.all, readable.scopes])).rows;
}
