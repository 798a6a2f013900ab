// memory_recall's call: the statement is the function am_recall
// (sql/functions/am_recall.sql), which says what each parameter is. Each row
// comes back as one JSON object; the parameters are recallParams' (read.ts).
export const RECALL_CALL = `
  select r from am_recall($1::text[], $2::text[], $3::boolean[], $4::boolean, $5::text[], $6::text, $7::text, $8::text,
                          $9::int, $10::int, $11::int, $12::int, $13::text[], $14::int, $15::text[], $16::text[]) as r`;

/**
 * For recall's drafts: the last review of an earlier version, when it was a
 * confirmation (an update starts again as a draft, and the agent should know
 * that the text before it had been confirmed); and the confirmed fact this
 * version looked most like when it was stored (fact_copies), if any. $1 scopes,
 * $2 names (pairs); one row per fact that has either. The drafts were just
 * found in scopes the caller may read; the fact copied is named whatever its
 * scope, as the duplicate warning named it to the draft's author.
 */
export const DRAFT_CONTEXT = `
  select f.scope, f.name, e.version, a.name as by, e.at, c.scope as copy_scope, c.name as copy_name
    from unnest($1::text[], $2::text[]) as k(scope, name)
    join facts f on f.scope = k.scope and f.name = k.name
    left join lateral (
      select e.version, e.actor_id, e.at, e.to_status from fact_events e
       where e.fact_id = f.id and e.version < f.version and e.kind in ('confirmed', 'deprecated')
       order by e.id desc limit 1) e on e.to_status = 'confirmed'
    left join agents a on a.id = e.actor_id
    left join lateral (
      select o.scope, o.name from fact_copies d join facts o on o.id = d.copy_of
       where d.fact_id = f.id and d.version = f.version and o.status = 'confirmed'
       order by d.similarity desc, o.id limit 1) c on true
   where a.name is not null or c.name is not null`;
