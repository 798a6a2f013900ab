// SQL for the people who review facts (the console's review queue and activity
// feed), kept apart from the tools' statements in sql.ts. Same rules: parameterized
// constants, readable scopes always from the authenticated caller.

/**
 * Recent fact events (created, updated, confirmed, deprecated), newest first,
 * in readable scopes, optionally by one agent. Read by am_recent_page:
 * each readable scope's events through fact_events' (scope, id)
 * index, at most $5 events of every scope together (never fewer than $4 + 1 per
 * scope), so the read does not grow with what others wrote in scopes the
 * reader cannot see. Kept events first, newest first, at most $4, and only
 * below event id $6 (null: from the newest; the console's "Older" pages).
 * `stop` (on every row) is the highest id at which a walk stopped at its
 * bound, or null: only an actor filter can make one stop; `stop_at` the time
 * of the newest event a walk stopped at. A walk that stopped
 * with nothing kept comes back as rows that are not kept and have no event
 * columns.
 * $1/$2 readable scopes, $3 actor name or null, $4 limit, $5 rows read at most,
 * $6 read below this event id, or null.
 */
export const RECENT_FACT_EVENTS = `
  select p.kept, max(p.id) filter (where p.last) over () as stop, max(e.at) filter (where p.last) over () as stop_at,
         e.id, e.kind, e.version, e.at, e.reason, ea.name as actor, e.scope, e.name
    from am_recent_page('fact_events', $5::int, $4::int, $1::boolean, $2::text[], $3::text, $6::bigint) p
    -- One lookup by primary key per event kept (and where a walk stopped):
    -- OFFSET 0 keeps the subquery apart, so the planner cannot hash-join the
    -- whole table instead.
    left join lateral (
      select e.id, e.kind, e.version, e.at, e.reason, e.actor_id, e.scope, f.name
        from fact_events e join facts f on f.id = e.fact_id
       where (p.kept or p.last) and e.id = p.id offset 0) e on true
    left join agents ea on ea.id = e.actor_id
   order by p.kept desc, p.id desc
   limit $4::int`;

/** Who could confirm instead of the author: active agents that may write the scope. $1 author id, $2 scope. */
export const POSSIBLE_REVIEWERS = `
  select name, kind from agents
   where disabled_at is null and id <> $1::bigint
     and ('*' = any(write_scopes) or $2::text = any(write_scopes))
   order by kind desc, name
   limit 6`;
