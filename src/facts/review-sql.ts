// SQL for the people who review facts (the console's review queue and activity
// feed), kept apart from the tools' statements in sql.ts. Same rules: parameterized
// constants, readable scopes always from the authenticated caller.
import { READABLE } from "./sql.js";

/**
 * Recent fact events (created, updated, confirmed, deprecated), newest first,
 * in readable scopes, optionally by one agent. Walks fact_events' primary key
 * backwards. $1/$2 readable scopes, $3 actor name or null, $4 limit.
 */
export const RECENT_FACT_EVENTS = `
  select e.id, e.kind, e.version, e.at, e.reason, ea.name as actor, f.scope, f.name
    from fact_events e
    join facts f on f.id = e.fact_id
    join agents ea on ea.id = e.actor_id
   where ${READABLE("$1", "$2")}
     and ($3::text is null or ea.name = $3::text)
   order by e.id desc
   limit $4::int`;

/** Who could confirm instead of the author: active agents that may write the scope. $1 author id, $2 scope. */
export const POSSIBLE_REVIEWERS = `
  select name, kind from agents
   where disabled_at is null and id <> $1::bigint
     and ('*' = any(write_scopes) or $2::text = any(write_scopes))
   order by kind desc, name
   limit 6`;
