// memory_recall's call: the statement is the function am_recall
// (sql/functions/am_recall.sql), which says what each parameter is. Each row
// comes back as one JSON object; the parameters are recallParams' (read.ts).
export const RECALL_CALL = `
  select r from am_recall($1::text[], $2::text[], $3::boolean[], $4::boolean, $5::text[], $6::text, $7::text, $8::text,
                          $9::int, $10::int, $11::int, $12::int, $13::text[], $14::int, $15::text[], $16::text[],
                          $17::text[], $18::text[], $19::int, $20::int) as r`;

/**
 * For recall's drafts of a later version: the last review of an earlier
 * version, when it was a confirmation (an update starts again as a draft, and
 * the agent should know that the text before it had been confirmed). $1
 * scopes, $2 names (pairs); one row per fact that has one. The facts were
 * just found in scopes the caller may read.
 */
export const PREVIOUS_CONFIRMATION = `
  select f.scope, f.name, e.version, a.name as by, e.at
    from unnest($1::text[], $2::text[]) as k(scope, name)
    join facts f on f.scope = k.scope and f.name = k.name
    cross join lateral (
      select e.version, e.actor_id, e.at, e.to_status from fact_events e
       where e.fact_id = f.id and e.version < f.version and e.kind in ('confirmed', 'deprecated')
       order by e.id desc limit 1) e
    join agents a on a.id = e.actor_id
   where e.to_status = 'confirmed'`;

/**
 * The facts recall by meaning found that no keyword matched, as RECALL's rows
 * ($1 ids, $2 STALE_AFTER_DAYS); the neighbour search (src/facts/embeddings/)
 * found them in scopes the caller may read.
 */
export const RECALL_ROWS = `
  select f.id::text as id, f.scope, f.name, f.description, f.type, f.status, f.version,
         a.name as author, f.created_at, f.updated_at,
         sb.name as status_by, f.status_at, f.status_reason, char_length(f.body) as body_chars,
         am_fact_stale(f.status, f.status_at, $2::int) as stale,
         am_fact_search_body(f.body) as body,
         null as exact_levels, null as near_levels, null as sentence_levels, null as sentence_words,
         c.scope as copy_scope, c.name as copy_name
    from unnest($1::bigint[]) as k(id)
    join facts f on f.id = k.id
    join agents a on a.id = f.author_id
    left join agents sb on sb.id = f.status_by_id
    left join lateral am_fact_copy_of(f.id, f.version, f.status) c on true`;
