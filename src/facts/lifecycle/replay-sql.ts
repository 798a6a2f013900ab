// An import's new facts, many in one statement (replay.ts, insertFactHistories).
// Each fact's row is written once, as its last event leaves it, with every
// version and every event: replaying the events one statement at a time
// (CREATE_FACT, then PROMOTE_FACT) wrote a promoted fact's row twice, and every
// index of the row with it.
import { cjkWords } from "../sql.js";

const WORDS = (column: string) => `array(select jsonb_array_elements_text(${column}))`;

/**
 * Inserts new facts with their histories. Names taken in their scope (or twice
 * in the input: the first wins) are left out; their versions and events too.
 * Answers the input positions (1-based) of the facts inserted.
 * Facts, parallel: $1 scope, $2 name, $3 description, $4 type, $5 body,
 * $6 status, $7 version, $8 author id, $9 created, $10 updated, $11-$13 the
 * last review (by id, at, reason; null for a draft), $14/$15 CJK words of the
 * head and of the body (jsonb arrays, factWordsParams), $16 their rules.
 * Versions, parallel: $17 the fact's position, $18 version, $19 description,
 * $20 type, $21 body, $22 author id, $23 when.
 * Events, parallel and in order: $24 the fact's position, $25 version,
 * $26 kind, $27 actor id, $28 at, $29 from, $30 to, $31 reason.
 */
export const INSERT_FACT_HISTORIES = `
  with input as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::bigint[],
                         $9::timestamptz[], $10::timestamptz[], $11::bigint[], $12::timestamptz[], $13::text[], $14::jsonb[], $15::jsonb[])
      with ordinality as u(scope, name, description, type, body, status, version, author_id, created_at, updated_at,
                           status_by_id, status_at, status_reason, cjk_head, cjk_body, ord)
  ), ins as (
    insert into facts (scope, name, description, type, body, status, version, author_id, created_at, updated_at,
                       status_by_id, status_at, status_reason, search_cjk, search_cjk_head, search_cjk_rules)
    select i.scope, i.name, i.description, i.type, i.body, i.status, i.version, i.author_id, i.created_at, i.updated_at,
           i.status_by_id, i.status_at, i.status_reason, ${cjkWords(WORDS("i.cjk_head"), WORDS("i.cjk_body"))}, $16::text
      from input i
     order by i.ord
    on conflict (name, scope) do nothing
    returning id, scope, name
  ), fact as (
    select ins.id, ins.scope, min(i.ord) as ord
      from ins join input i on i.scope = ins.scope and i.name = ins.name
     group by ins.id, ins.scope
  ), ver as (
    insert into fact_versions (fact_id, version, description, type, body, author_id, created_at)
    select f.id, v.version, v.description, v.type, v.body, v.author_id, v.created_at
      from unnest($17::int[], $18::int[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::timestamptz[])
           as v(fact, version, description, type, body, author_id, created_at)
      join fact f on f.ord = v.fact
  ), ev as (
    insert into fact_events (fact_id, scope, version, kind, actor_id, at, from_status, to_status, reason)
    select f.id, f.scope, e.version, e.kind, e.actor_id, e.at, e.from_status, e.to_status, e.reason
      from unnest($24::int[], $25::int[], $26::text[], $27::bigint[], $28::timestamptz[], $29::text[], $30::text[], $31::text[])
           with ordinality as e(fact, version, kind, actor_id, at, from_status, to_status, reason, ord)
      join fact f on f.ord = e.fact
     order by e.ord
  )
  select ord::int from fact`;

/**
 * The words of earlier versions into their scopes' vocabularies (the insert's
 * trigger adds the current version's), as the updates that wrote them would
 * have. $1 scopes, $2 names, $3 descriptions, $4 bodies, parallel.
 */
export const ADD_EARLIER_WORDS = `
  select am_fact_words_add($1::text[], array(
           select am_fact_search_text(u.name, u.description, u.body)
             from unnest($2::text[], $3::text[], $4::text[]) with ordinality as u(name, description, body, ord)
            order by u.ord))`;
