// Memory health: by scope, drafts waiting for review, how long the oldest has
// waited, and stale facts (confirmed, not reviewed for STALE_AFTER_DAYS). Read
// from partial indexes that hold only drafts (facts_drafts) and only confirmed
// facts (facts_confirmed_status_at), so a reading costs the backlog and the
// stale facts, never the whole table. Reading writes nothing: the day's sample
// for the console's chart is written by the service itself, at most once a day
// per database (an hourly job of src/start/jobs.ts), whatever scrapes or page views do.
import type { Queryable } from "../../db/core/database.js";
import type { HealthFigures } from "../../metrics.js";

const HEALTH = `
  with drafts as (
    select scope, count(*)::int as drafts, extract(epoch from now() - min(updated_at))::float8 as oldest
      from facts where status = 'draft' group by scope
  ), stale as (
    select scope, count(*)::int as stale
      from facts where status = 'confirmed' and am_fact_stale(status, status_at, $1::int) group by scope
  )
  select coalesce(d.scope, s.scope) as scope, coalesce(d.drafts, 0) as drafts, round(coalesce(d.oldest, 0))::int as oldest, coalesce(s.stale, 0) as stale
    from drafts d full join stale s on s.scope = d.scope
   order by 1`;

export async function memoryHealth(db: Queryable, staleAfterDays: number): Promise<HealthFigures[]> {
  const rows = (await db.query<{ scope: string; drafts: number; oldest: number; stale: number }>(HEALTH, [staleAfterDays])).rows;
  return rows.map((r) => ({ scope: r.scope, drafts: r.drafts, oldestDraftSeconds: r.oldest, stale: r.stale }));
}

// Today's sample, unless the day has one (the primary key makes a race between
// service replicas harmless); a day on which no scope had drafts or stale facts
// keeps one row of zeros, so the chart tells "all clear" from "no sample".
// Samples older than 400 days go.
const SAMPLE_TODAY = `
  with today as (
    insert into memory_health_days (day, scope, drafts, oldest_draft_seconds, stale)
    select current_date, h.scope, h.drafts, h.oldest, h.stale
      from (${HEALTH}) h
     where not exists (select 1 from memory_health_days where day = current_date)
    union all
    select current_date, '', 0, 0, 0
     where not exists (select 1 from memory_health_days where day = current_date)
       and not exists (${HEALTH})
    on conflict (day, scope) do nothing
    returning 1
  )
  delete from memory_health_days where day < current_date - 400 and exists (select 1 from today)`;

/** Writes today's health sample if the database has none yet. */
export async function sampleHealthToday(db: Queryable, staleAfterDays: number): Promise<void> {
  await db.query(SAMPLE_TODAY, [staleAfterDays]);
}

export interface DaySample {
  day: string;
  drafts: number;
  stale: number;
}

// A day was sampled when it has any row (the sample of a day without drafts or
// stale facts is one row of zeros); the figures are the readable scopes' sums.
const HISTORY = `
  select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(sum(h.drafts), 0)::int as drafts, coalesce(sum(h.stale), 0)::int as stale,
         exists (select 1 from memory_health_days x where x.day = d.day) as sampled
    from generate_series(current_date - ($1::int - 1), current_date, interval '1 day') as d (day)
    left join memory_health_days h on h.day = d.day and am_in_scopes(h.scope, $2::boolean, $3::text[])
   group by d.day order by d.day`;

/** The backlog and stale facts of the readable scopes, one sample a day over the last `days`; a day without a reading has none. */
export async function healthHistory(db: Queryable, readable: { all: boolean; scopes: string[] }, days: number): Promise<Array<DaySample | { day: string; missing: true }>> {
  const rows = (await db.query<DaySample & { sampled: boolean }>(HISTORY, [days, readable.all, readable.scopes])).rows;
  return rows.map((r) => (r.sampled ? { day: r.day, drafts: r.drafts, stale: r.stale } : { day: r.day, missing: true as const }));
}

const REVIEWS = `
  select a.name as agent, count(*) filter (where e.kind = 'confirmed')::int as confirmed, count(*) filter (where e.kind = 'deprecated')::int as deprecated
    from fact_events e join agents a on a.id = e.actor_id
   where e.kind in ('confirmed', 'deprecated') and e.at > now() - make_interval(days => $1::int)
     and am_in_scopes(e.scope, $2::boolean, $3::text[])
   group by a.name order by count(*) desc, a.name limit 20`;

/** Who reviewed how much in the readable scopes over the last `days` (the 20 busiest). */
export async function reviewsByAgent(db: Queryable, readable: { all: boolean; scopes: string[] }, days: number): Promise<Array<{ agent: string; confirmed: number; deprecated: number }>> {
  return (await db.query<{ agent: string; confirmed: number; deprecated: number }>(REVIEWS, [days, readable.all, readable.scopes])).rows;
}
