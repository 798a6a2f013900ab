// SQL for facts. Parameterized constants only; the caller's readable scopes
// always come in as ($all::boolean, $scopes::text[]) from the authenticated
// agent, never from a tool argument alone.

// Must match the expression of the facts_search_trgm index exactly, or the
// planner cannot use it. (The words, search_head and search_body, have their own index: 000007.)
const SEARCH_TEXT = `(f.name || E'\\n' || f.description || E'\\n' || f.body)`;
const HEAD_TEXT = `(f.name || E'\\n' || f.description)`;

export const READABLE = (all: string, scopes: string) => `(${all}::boolean or f.scope = any(${scopes}::text[]))`;

// Status order for ranking: reviewed facts first, withdrawn ones last.
const STATUS_RANK = `case f.status when 'confirmed' then 0 when 'draft' then 1 else 2 end`;

/** Columns every fact answer carries (no body). */
export const SUMMARY_COLUMNS = `
  f.id, f.scope, f.name, f.description, f.type, f.status, f.version,
  a.name as author, f.created_at, f.updated_at,
  sb.name as status_by, f.status_at, f.status_reason, char_length(f.body) as body_chars`;

export const SUMMARY_JOINS = `
  join agents a on a.id = f.author_id
  left join agents sb on sb.id = f.status_by_id`;

const FILTERS = `
       ${READABLE("$4", "$5")}
       and ($6::text is null or f.type = $6::text)
       and ($7::text is null or f.status = $7::text)
       and ($8::text is null or f.scope = $8::text)`;

/**
 * How well one keyword matches one fact, best first (docs/recall.md):
 * 1 exact substring in name/description, 2 its words (stemmed, any order, or
 * the quoted phrase) in name/description, 3 exact in the body, 4 words in the
 * body; near matches (typos): 5 similar in name/description, 6 in the body.
 */
const EXACT_LEVEL = `
  case when t.head like k.lower_pattern then 1
       when f.search_head @@ k.q then 2
       when f.search_body @@ k.q then (case when t.body like k.lower_pattern then 3 else 4 end)
       when t.body like k.lower_pattern then 3
  end`;

// The head and body lowercased once per candidate for EXACT_LEVEL: ILIKE is
// exactly lower(text) LIKE lower(pattern), and would lowercase the whole body
// again for every keyword. "offset 0" keeps the planner from inlining these
// expressions back into every use.
const LOWERED = `cross join lateral (select lower(${HEAD_TEXT}) as head, lower(f.body) as body offset 0) t`;
const NEAR_LEVEL = `
  case when not k.near then null
       when word_similarity(k.text, ${HEAD_TEXT}) >= $11::real then 5
       when word_similarity(k.text, ${SEARCH_TEXT}) >= $11::real then 6
  end`;

/**
 * A fact's relevance: per keyword 4 for name/description, 2 for the body, 1 or
 * 0.5 when only similar, summed over the keywords. Substring and word matches
 * in a field weigh the same (a fact saying "migrations" is as relevant to
 * "migration" as one saying "migration"), so that the lifecycle decides among
 * comparably relevant facts, and a fact matching more keywords ranks higher.
 * One lateral subquery per candidate gives both the levels and the score.
 */
const SCORED = (level: string, keywords: string) => `
      cross join lateral (
        select array_agg(x.level order by x.i) as levels,
               coalesce(sum(case x.level when 1 then 4 when 2 then 4 when 3 then 2 when 4 then 2 when 5 then 1 when 6 then 0.5 end), 0) as score
          from (select k.i, ${level} as level from ${keywords} k) x
      ) m`;

/**
 * recall in one round trip.
 * - `kw0` turns each keyword into a full-text query (`english` and `simple`,
 *   ORed; its words ANDed in any order, or a phrase when quoted).
 * - `exact` finds the facts that contain a keyword (trigram index) or its
 *   words (tsvector index), in a BitmapOr filtered by scope in the same scan,
 *   with each keyword's level and the score.
 * - `kw` marks as `near` the unquoted keywords no such fact matched: only
 *   those are looked up by trigram word similarity (typos), so a keyword found
 *   as written never pulls in look-alikes ("100%" does not bring "1000").
 * - `near` finds those through the trigram index. The threshold is set for
 *   this statement's transaction only, inside the array the index scan waits
 *   for, so it is in force before the scan starts (`%>` reads it there).
 * - `hits` merges both (a near keyword has no exact level anywhere, the others
 *   no near level: scores add up), counts every match (window), ranks and
 *   cuts; only the rows kept are joined back for their (shortened) bodies and
 *   names, so long bodies of cut rows are never copied. The caller merges the
 *   two level arrays of the rows kept.
 * $1 patterns, $2 texts, $3 phrase flags (one per keyword), $4/$5 readable
 * scopes, $6 type, $7 status, $8 scope, $9 limit, $10 body chars,
 * $11 near-match threshold.
 */
export const RECALL = `
  with kw0 as materialized (
    select k.i::int as i, k.text, k.pattern, lower(k.pattern) as lower_pattern, k.phrase,
           case when k.phrase then phraseto_tsquery('english', k.text) || phraseto_tsquery('simple', k.text)
                else plainto_tsquery('english', k.text) || plainto_tsquery('simple', k.text) end as q
      from unnest($1::text[], $2::text[], $3::boolean[]) with ordinality as k(pattern, text, phrase, i)
  ), exact as materialized (
    select f.id, ${STATUS_RANK} as status_rank, f.updated_at, m.levels, m.score
      from facts f
      ${LOWERED}
      ${SCORED(EXACT_LEVEL, "kw0")}
     where (${SEARCH_TEXT} ilike any($1::text[]) or f.search_head @@ (select am_tsquery_or(q) from kw0) or f.search_body @@ (select am_tsquery_or(q) from kw0))
       and ${FILTERS}
  ), kw as materialized (
    select k.*, not k.phrase and not exists (select 1 from exact e where e.levels[k.i] is not null) as near
      from kw0 k
  ), near as materialized (
    select f.id, ${STATUS_RANK} as status_rank, f.updated_at, m.levels, m.score
      from facts f
      ${SCORED(NEAR_LEVEL, "kw")}
     where ${SEARCH_TEXT} %> any(array(
             select k.text from kw k
              where k.near and set_config('pg_trgm.word_similarity_threshold', $11::real::text, true) is not null))
       and ${FILTERS}
       -- Evaluated once, before the scan: with no near keyword (the usual case) the
       -- scan never runs, whatever plan the planner chose for it.
       and exists (select 1 from kw k where k.near)
  ), hits as (
    select coalesce(e.id, n.id) as id,
           coalesce(e.status_rank, n.status_rank) as status_rank,
           coalesce(e.updated_at, n.updated_at) as updated_at,
           coalesce(e.score, 0) + coalesce(n.score, 0) as score,
           e.levels as exact_levels, n.levels as near_levels,
           count(*) over () as total
      from exact e full join near n on n.id = e.id
     order by score desc, status_rank, updated_at desc, id desc
     limit $9::int
  )
  select ${SUMMARY_COLUMNS},
         left(f.body, $10::int) as body,
         h.exact_levels, h.near_levels, h.total
    from hits h
    join facts f on f.id = h.id
    ${SUMMARY_JOINS}
   order by h.score desc, h.status_rank, h.updated_at desc, h.id desc`;

/**
 * One fact with a window of its history, in one round trip: the newest $6
 * versions before version $5 (null: the newest $6), oldest first, and the
 * events of those versions. Versions run 1..version without gaps (a trigger
 * holds new versions to version + 1), so `earlier` counts what lies before the
 * window. Several rows mean the name exists in several readable scopes (the
 * caller must choose). $1 name, $2 scope or null, $3/$4 readable scopes.
 */
export const GET_FACT = `
  select ${SUMMARY_COLUMNS}, f.body,
         (select coalesce(json_agg(json_build_object(
                   'version', v.version, 'description', v.description, 'type', v.type,
                   'body', v.body, 'author', va.name, 'at', v.created_at) order by v.version), '[]'::json)
            from fact_versions v join agents va on va.id = v.author_id
           where v.fact_id = f.id and v.version between w.first and w.last) as versions,
         (select coalesce(json_agg(json_build_object(
                   'kind', e.kind, 'version', e.version, 'actor', ea.name, 'at', e.at,
                   'from', e.from_status, 'to', e.to_status, 'reason', e.reason) order by e.id), '[]'::json)
            from fact_events e join agents ea on ea.id = e.actor_id
           where e.fact_id = f.id and e.version between w.first and w.last) as events,
         (select count(*) from fact_versions v where v.fact_id = f.id and v.version < w.first)::int as earlier
    from facts f
    ${SUMMARY_JOINS}
    cross join lateral (select least(f.version, coalesce($5::int - 1, f.version)) as last) l
    cross join lateral (select greatest(l.last - $6::int + 1, 1) as first, l.last) w
   where f.name = $1::text
     and ($2::text is null or f.scope = $2::text)
     and ${READABLE("$3", "$4")}
   order by f.scope`;

/**
 * A page of facts, most recently changed first (keyset on change_seq).
 * $1/$2 readable, $3 status, $4 type, $5 scope, $6 author name,
 * $7 reviewable, $8 caller id, $9/$10 writable scopes, $11 before change_seq, $12 limit,
 * $13 days after which a confirmed fact is stale (reviewable lists it again).
 */
export const LIST_FACTS = `
  select ${SUMMARY_COLUMNS}, f.change_seq
    from facts f
    ${SUMMARY_JOINS}
   where ${READABLE("$1", "$2")}
     and ($3::text is null or f.status = $3::text)
     and ($4::text is null or f.type = $4::text)
     and ($5::text is null or f.scope = $5::text)
     and ($6::text is null or a.name = $6::text)
     and (not $7::boolean
          or ((f.status = 'draft' or (f.status = 'confirmed' and f.status_at < now() - make_interval(days => $13::int)))
              and f.author_id <> $8::bigint and ($9::boolean or f.scope = any($10::text[]))))
     and ($11::bigint is null or f.change_seq < $11::bigint)
   order by f.change_seq desc
   limit $12::int`;

/**
 * Inserts a new fact as draft version 1 with its first version and "created"
 * event, in one statement. No row back means the name is taken in that scope.
 * $1 scope, $2 name, $3 description, $4 type, $5 body, $6 author id,
 * $7 when (null: now; an import passes the original time).
 */
export const CREATE_FACT = `
  with ins as (
    insert into facts (scope, name, description, type, body, status, version, author_id, created_at, updated_at)
    values ($1::text, $2::text, $3::text, $4::text, $5::text, 'draft', 1, $6::bigint,
            coalesce($7::timestamptz, now()), coalesce($7::timestamptz, now()))
    on conflict (name, scope) do nothing
    returning id, version, description, type, body, author_id, created_at, updated_at
  ), ver as (
    insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
    select id, version, description, type, body, author_id, created_at from ins
  ), ev as (
    insert into fact_events (fact_id, version, kind, actor_id, at, from_status, to_status)
    select id, version, 'created', author_id, created_at, null, 'draft' from ins
  )
  select id, version, created_at, updated_at from ins`;

// Locking reads take the row lock in a CTE over facts alone, and join the
// agents' names afterwards. With the join inside the locking query, a caller
// that waited for the lock would re-check the updated row against the *old*
// joined agent row (Postgres's EvalPlanQual keeps the other tables' rows), so a
// changed author made the fact vanish and a new reviewer read as null.
const lockedFact = (where: string) => `
  with f as (
    select * from facts f
     where ${where}
     order by f.scope
       for update
  )
  select ${SUMMARY_COLUMNS}, f.body, f.author_id
    from f
    ${SUMMARY_JOINS}
   order by f.scope`;

/** The current row of a fact for a read-modify-write, locked. $1 name, $2 scope. */
export const LOCK_FACT_IN_SCOPE = lockedFact(`f.name = $1::text and f.scope = $2::text`);

/** Who holds a name in a scope (for the "already exists" answer). $1 name, $2 scope. */
export const CURRENT_VERSION = `
  select f.version, f.status, a.name as author, f.updated_at
    from facts f join agents a on a.id = f.author_id
   where f.name = $1::text and f.scope = $2::text`;

/**
 * Stores the next version as a draft, with its version row and "updated" event.
 * $1 id, $2 description, $3 type, $4 body, $5 author id, $6 previous status,
 * $7 when (null: now; an import passes the original time).
 */
export const UPDATE_FACT = `
  with upd as (
    update facts
       set version = version + 1, status = 'draft', description = $2::text, type = $3::text, body = $4::text,
           author_id = $5::bigint, updated_at = coalesce($7::timestamptz, now()), change_seq = nextval('fact_change_seq'),
           status_by_id = null, status_at = null, status_reason = null
     where id = $1::bigint
    returning id, version, description, type, body, author_id, created_at, updated_at
  ), ver as (
    insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
    select id, version, description, type, body, author_id, updated_at from upd
  ), ev as (
    insert into fact_events (fact_id, version, kind, actor_id, at, from_status, to_status)
    select id, version, 'updated', author_id, updated_at, $6::text, 'draft' from upd
  )
  select id, version, created_at, updated_at from upd`;

/**
 * The fact to promote, locked; found by exact name among readable scopes.
 * $1 name, $2 scope or null, $3/$4 readable scopes.
 */
export const LOCK_FACT_FOR_PROMOTION = lockedFact(
  `f.name = $1::text and ($2::text is null or f.scope = $2::text) and ${READABLE("$3", "$4")}`,
);

/**
 * Moves a fact to a new status and appends the event, in one statement.
 * $1 id, $2 to status, $3 actor id, $4 reason, $5 from status,
 * $6 when (null: now; an import passes the original time).
 */
export const PROMOTE_FACT = `
  with upd as (
    update facts
       set status = $2::text, status_by_id = $3::bigint, status_reason = $4::text, status_at = coalesce($6::timestamptz, now()),
           change_seq = nextval('fact_change_seq')
     where id = $1::bigint
    returning id, version, status_at
  ), ev as (
    insert into fact_events (fact_id, version, kind, actor_id, at, from_status, to_status, reason)
    select id, version, $2::text, $3::bigint, status_at, $5::text, $2::text, $4::text from upd
  )
  select id, version, status_at from upd`;

/**
 * Readable facts most like a new one (the duplicate warning), best first. The
 * search runs in am_similar_facts (sql/000011_facts_similar.sql) over the
 * facts_head_trgm index. $1 text ("name description"), $2 threshold,
 * $3/$4 readable scopes, $5 the new fact's id (left out), $6 how many.
 */
export const SIMILAR_FACTS = `
  select f.name, f.scope, f.status, f.version, f.description, s.similarity
    from am_similar_facts($1::text, $2::real, $3::boolean, $4::text[], $5::bigint, $6::int) s
    join facts f on f.id = s.id
   order by s.similarity desc, f.id`;
