// SQL for facts. Parameterized constants only; the caller's readable scopes
// always come in as ($all::boolean, $scopes::text[]) from the authenticated
// agent, never from a tool argument alone. Recall's statement is in recall-sql.ts,
// a fact's whole history (exports, imports) in lifecycle/history-sql.ts.

const READABLE = (all: string, scopes: string) => `am_in_scopes(f.scope, ${all}::boolean, ${scopes}::text[])`;

/** Columns every fact answer carries (no body). */
const SUMMARY_COLUMNS = `
  f.id, f.scope, f.name, f.description, f.type, f.status, f.version,
  a.name as author, f.created_at, f.updated_at,
  sb.name as status_by, f.status_at, f.status_reason, char_length(f.body) as body_chars`;

/** Whether the fact `f` is stale (am_fact_stale), given the parameter holding STALE_AFTER_DAYS. */
const STALE = (daysParam: string) => `am_fact_stale(f.status, f.status_at, ${daysParam}::int) as stale`;

const SUMMARY_JOINS = `
  join agents a on a.id = f.author_id
  left join agents sb on sb.id = f.status_by_id`;

// A fact's supersession links (supersession.ts), each only where the caller may
// read ($3/$4): the fact it replaces, its successor, and drafts proposing to replace it.
const READABLE_S = `am_in_scopes(s.scope, $3::boolean, $4::text[])`;
const SUPERSESSION_LINKS = `
         (select s.scope || '/' || s.name from facts s where s.id = f.supersedes_id and ${READABLE_S}) as supersedes,
         (select s.scope || '/' || s.name from facts s where s.id = f.superseded_by_id and ${READABLE_S}) as superseded_by,
         (select json_agg(s.scope || '/' || s.name order by s.id) from facts s
           where s.supersedes_id = f.id and s.status = 'draft' and ${READABLE_S}) as replacements,
         (select json_agg(json_build_object('version', r.version, 'by', ra.name, 'at', r.redacted_at, 'reason', r.reason) order by r.version)
            from fact_redactions r join agents ra on ra.id = r.redacted_by where r.fact_id = f.id) as redactions`;

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
         (select count(*) from fact_versions v where v.fact_id = f.id and v.version < w.first)::int as earlier,
         ${SUPERSESSION_LINKS}
    from facts f
    ${SUMMARY_JOINS}
    cross join lateral (select least(f.version, coalesce($5::int - 1, f.version)) as last) l
    cross join lateral (select greatest(l.last - $6::int + 1, 1) as first, l.last) w
   where f.name = $1::text
     and ($2::text is null or f.scope = $2::text)
     and ${READABLE("$3", "$4")}
   order by f.scope`;

// A review time as whole microseconds since 1970, as text: the stale part's
// keyset (status_at, id) must come back exact, and a JavaScript Date keeps
// milliseconds only (a cursor a microsecond early would repeat its fact).
const MICROS = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;
/** The time MICROS wrote, back as a timestamptz (null stays null). */
const FROM_MICROS = (param: string) => `('epoch'::timestamptz + ${param}::bigint * interval '1 microsecond')`;

/**
 * A page of facts read by a bounded scan (am_fact_page): at most
 * $7 facts in the order $1, of which those passing the filters come back, up
 * to $8, and the $7-th fact read comes back marked `last` (then the scan
 * stopped at its bound). Rows in the scan's order; a `last` row that did not
 * pass the filters has no fact columns.
 * $1 order ('newest', 'oldest', 'stale'), $2 status, $3 change_seq to start
 * after, $4 days after which a confirmed fact is stale (the `stale` column,
 * and the 'stale' order), $5/$6 the
 * review time (MICROS) and id to start after ('stale'), $7 facts read at most,
 * $8 facts wanted, $9/$10 readable, $11 type, $12 scope, $13 author name,
 * $14 not written by this agent id, $15/$16 writable scopes (null $15: any).
 */
const FACT_PAGE = (extraColumns = "", extraJoins = "") => `
  select ${SUMMARY_COLUMNS}, ${STALE("$4")}, p.id as scan_id, p.change_seq, ${MICROS("p.status_at")} as status_at_us, p.kept, p.last${extraColumns}
    from am_fact_page($1::text, $2::text, $3::bigint, am_stale_cutoff($4::int), ${FROM_MICROS("$5")}, $6::bigint,
                      $7::int, $8::int, $9::boolean, $10::text[], $11::text, $12::text, $13::text,
                      $14::bigint, $15::boolean, $16::text[]) with ordinality as p(id, change_seq, status_at, kept, last, ord)
    left join facts f on p.kept and f.id = p.id
    left join agents a on a.id = f.author_id
    left join agents sb on sb.id = f.status_by_id
    ${extraJoins}
   order by p.ord`;

/** How many facts one bounded scan finds (up to $8), and whether it stopped at its bound. FACT_PAGE's parameters. */
export const FACT_PAGE_COUNT = `
  select (count(*) filter (where p.kept))::int as n, coalesce(bool_or(p.last), false) as stopped
    from am_fact_page($1::text, $2::text, $3::bigint, am_stale_cutoff($4::int), ${FROM_MICROS("$5")}, $6::bigint,
                      $7::int, $8::int, $9::boolean, $10::text[], $11::text, $12::text, $13::text,
                      $14::bigint, $15::boolean, $16::text[]) p`;

/** memory_list's page (and the review queue's parts): FACT_PAGE with the summary columns. */
export const LIST_FACTS = FACT_PAGE();

/**
 * The console's review queue (order 'oldest', status 'draft', the reviewer's
 * filters): each draft whole, with the version before it for a diff.
 */
export const REVIEW_QUEUE = FACT_PAGE(
  ", f.body, pv.description as prev_description, pv.type as prev_type, pv.body as prev_body",
  "left join fact_versions pv on pv.fact_id = f.id and pv.version = f.version - 1",
);

/** The console's stale queue (order 'stale'): each fact whole. */
export const STALE_QUEUE = FACT_PAGE(", f.body");

/**
 * A fact's CJK words (cjk-words.ts), lexemes taken whole, from two text[]
 * expressions: those of the name and description, and those of the body; all
 * of them in facts.search_cjk, the first in search_cjk_head.
 */
export const cjkWords = (head: string, body: string): string => `array_to_tsvector(${head} || ${body}), array_to_tsvector(${head})`;
const CJK_WORDS = cjkWords("$8::text[]", "$9::text[]");

/**
 * Inserts a new fact as draft version 1 with its first version and "created"
 * event, in one statement. No row back means the name is taken in that scope.
 * $1 scope, $2 name, $3 description, $4 type, $5 body, $6 author id,
 * $7 when (null: now; an import passes the original time), $8-$10 its CJK
 * words and their rules (factWordsParams).
 */
export const CREATE_FACT = `
  with ins as (
    insert into facts (scope, name, description, type, body, status, version, author_id, created_at, updated_at, search_cjk, search_cjk_head, search_cjk_rules, supersedes_id)
    values ($1::text, $2::text, $3::text, $4::text, $5::text, 'draft', 1, $6::bigint,
            coalesce($7::timestamptz, now()), coalesce($7::timestamptz, now()), ${CJK_WORDS}, $10::text, $11::bigint)
    on conflict (name, scope) do nothing
    returning id, scope, version, description, type, body, author_id, created_at, updated_at
  ), ver as (
    insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
    select id, version, description, type, body, author_id, created_at from ins
  ), ev as (
    insert into fact_events (fact_id, scope, version, kind, actor_id, at, from_status, to_status)
    select id, scope, version, 'created', author_id, created_at, null, 'draft' from ins
  )
  select id, version, created_at, updated_at from ins`;

// Locking reads take the row lock in a CTE over facts alone, and join the
// agents' names afterwards. With the join inside the locking query, a caller
// that waited for the lock would re-check the updated row against the *old*
// joined agent row (Postgres's EvalPlanQual keeps the other tables' rows), so a
// changed author made the fact vanish and a new reviewer read as null.
const lockedFact = (where: string, extraColumns = "") => `
  with f as (
    select * from facts f
     where ${where}
     order by f.scope
       for update
  )
  select ${SUMMARY_COLUMNS}, f.body, f.author_id, f.supersedes_id, f.superseded_by_id${extraColumns}
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
 * $7 when (null: now; an import passes the original time), $8-$10 its CJK
 * words and their rules (factWordsParams).
 */
export const UPDATE_FACT = `
  with upd as (
    update facts
       set version = version + 1, status = 'draft', description = $2::text, type = $3::text, body = $4::text,
           (search_cjk, search_cjk_head) = (${CJK_WORDS}), search_cjk_rules = $10::text,
           author_id = $5::bigint, updated_at = coalesce($7::timestamptz, now()), change_seq = nextval('fact_change_seq'),
           status_by_id = null, status_at = null, status_reason = null
     where id = $1::bigint
    returning id, scope, version, description, type, body, author_id, created_at, updated_at
  ), ver as (
    insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
    select id, version, description, type, body, author_id, updated_at from upd
  ), ev as (
    insert into fact_events (fact_id, scope, version, kind, actor_id, at, from_status, to_status)
    select id, scope, version, 'updated', author_id, updated_at, $6::text, 'draft' from upd
  )
  select id, version, created_at, updated_at from upd`;

/**
 * The fact to promote, locked; found by exact name among readable scopes.
 * $1 name, $2 scope or null, $3/$4 readable scopes, $5 STALE_AFTER_DAYS
 * (whether it is stale: a new review of a confirmed fact is allowed then).
 */
export const LOCK_FACT_FOR_PROMOTION = lockedFact(
  `f.name = $1::text and ($2::text is null or f.scope = $2::text) and ${READABLE("$3", "$4")}`,
  `, ${STALE("$5")}`,
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
    returning id, scope, version, status_at
  ), ev as (
    insert into fact_events (fact_id, scope, version, kind, actor_id, at, from_status, to_status, reason)
    select id, scope, version, $2::text, $3::bigint, status_at, $5::text, $2::text, $4::text from upd
  )
  select id, version, status_at from upd`;

/**
 * Readable facts most like a new one (the duplicate warning), live ones first,
 * then by similarity. The
 * search runs in am_similar_facts:
 * facts with the same description first (a btree probe), otherwise the
 * facts_duplicate_trgm index (am_duplicate_text: without function words). $1 text
 * ("name description"), $2 threshold,
 * $3/$4 readable scopes, $5/$6 the new fact's scope and name (left out: the
 * lookup runs beside the insert, so it may or may not see the new fact), $7
 * how many, $8 the new fact's description.
 */
export const SIMILAR_FACTS = `
  select f.name, f.scope, f.status, f.version, f.description, s.similarity
    from am_similar_facts($1::text, $2::real, $3::boolean, $4::text[], $5::text, $6::text, $7::int, $8::text) s
    join facts f on f.id = s.id
   order by f.status = 'deprecated', s.similarity desc, f.id
   limit $7::int`;

/**
 * Records which of a new draft's look-alikes (the duplicate warning) are
 * confirmed facts, for recall's hits. $1 the draft's id, $2 scopes, $3 names,
 * $4 similarities of the look-alikes.
 */
export const RECORD_COPIES = `
  insert into fact_copies (fact_id, version, copy_of, similarity)
  select $1::bigint, 1, f.id, k.similarity
    from unnest($2::text[], $3::text[], $4::real[]) as k(scope, name, similarity)
    join facts f on f.scope = k.scope and f.name = k.name
   where f.status = 'confirmed' and f.id <> $1::bigint
  on conflict do nothing`;
