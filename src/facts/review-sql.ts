// SQL for the people who review facts (the console's review queue and activity
// feed), kept apart from the tools' statements in sql.ts. Same rules: parameterized
// constants, readable scopes always from the authenticated caller.
import { READABLE, SUMMARY_COLUMNS, SUMMARY_JOINS } from "./sql.js";

/**
 * The review queue, oldest draft first (keyset on change_seq): drafts whose
 * current version someone else wrote, in scopes the reviewer may write (the
 * scopes memory_promote lets them confirm), each with the version before it
 * for a diff. Served by facts_status_change_seq.
 * $1 reviewer id, $2/$3 writable scopes, $4 after change_seq, $5 limit.
 */
export const REVIEW_QUEUE = `
  select ${SUMMARY_COLUMNS}, f.body, f.change_seq,
         p.description as prev_description, p.type as prev_type, p.body as prev_body
    from facts f
    ${SUMMARY_JOINS}
    left join fact_versions p on p.fact_id = f.id and p.version = f.version - 1
   where f.status = 'draft' and f.author_id <> $1::bigint
     and ($2::boolean or f.scope = any($3::text[]))
     and ($4::bigint is null or f.change_seq > $4::bigint)
   order by f.change_seq
   limit $5::int`;

/** How many drafts wait for this reviewer, counted up to $4. $1 reviewer id, $2/$3 writable scopes. */
export const REVIEW_QUEUE_COUNT = `
  select count(*)::int as n from (
    select 1 from facts f
     where f.status = 'draft' and f.author_id <> $1::bigint
       and ($2::boolean or f.scope = any($3::text[]))
     limit $4::int) q`;

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

/**
 * Stale facts for this reviewer, the longest unreviewed first: confirmed facts
 * whose last review (status_at) is older than $4 days, written by someone else,
 * in scopes the reviewer may write (the same rule as memory_list reviewable).
 * Served by facts_confirmed_status_at (sql/000014). $1 reviewer id, $2/$3
 * writable scopes, $4 days after which a confirmed fact is stale, $5 limit.
 */
export const STALE_QUEUE = `
  select ${SUMMARY_COLUMNS}, f.body
    from facts f
    ${SUMMARY_JOINS}
   where f.status = 'confirmed' and f.status_at < now() - make_interval(days => $4::int)
     and f.author_id <> $1::bigint
     and ($2::boolean or f.scope = any($3::text[]))
   order by f.status_at, f.id
   limit $5::int`;

/** How many stale facts wait for this reviewer, counted up to $5. Same $1-$4 as STALE_QUEUE. */
export const STALE_QUEUE_COUNT = `
  select count(*)::int as n from (
    select 1 from facts f
     where f.status = 'confirmed' and f.status_at < now() - make_interval(days => $4::int)
       and f.author_id <> $1::bigint
       and ($2::boolean or f.scope = any($3::text[]))
     limit $5::int) q`;
