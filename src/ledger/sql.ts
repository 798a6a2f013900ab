// SQL of the ledger. Parameterized constants only.
import { EVENT_COLUMNS } from "./event.js";

// A key's state ($1 action, $2 target): the database clock, the executed
// record and the claim, and claim_version, what APPEND_IF_UNCHANGED compares.
const KEY_STATE_COLUMNS = `
         date_trunc('milliseconds', clock_timestamp()) as now_at,
         e.seq as exec_seq, e.actor_id as exec_actor_id, e.actor as exec_actor, e.at as exec_at,
         e.evidence as exec_evidence, e.note as exec_note, e.hash as exec_hash,
         c.holder_id as claim_holder_id, c.holder as claim_holder,
         c.claimed_at as claim_claimed_at, c.expires_at as claim_expires_at,
         c.claim_ref as claim_ref, c.id_required as claim_id_required,
         am_ledger_claim_version(c.holder_id, c.claimed_at, c.expires_at) as claim_version`;
const KEY_STATE_FROM = `
    from (select 1) as one
    left join ledger_records r on r.action = $1::text and r.target = $2::text
    left join ledger_events e on e.seq = r.seq
    left join ledger_claims c on c.action = $1::text and c.target = $2::text`;

/**
 * An agent's write, first step: the key's state and what the permission and quota
 * checks need, read WITHOUT the chain-head lock ($1 action, $2 target, $3 agent id,
 * $4 default scope).
 */
export const READ_KEY_FOR_AGENT = `
  select ${KEY_STATE_COLUMNS},
         coalesce(la.scope, $4::text) as action_scope,
         a.write_scopes as agent_write_scopes, a.kind as agent_kind, a.disabled_at is not null as agent_disabled,
         (select count(*)::int from ledger_claims o
           where o.holder_id = $3::bigint and o.expires_at > date_trunc('milliseconds', clock_timestamp())) as agent_open_claims
    ${KEY_STATE_FROM}
    left join ledger_actions la on la.action = $1::text
    left join agents a on a.id = $3::bigint`;

/** The fallback's lock, and an import's: taken first, so what is read after it nobody can change. */
export const LOCK_HEAD = `select last_seq from ledger_chain_head for update`;

/**
 * An agent's write, second step, for one or more writes at once: one statement
 * that locks the head, checks each key is as read, hashes in SQL and appends
 * (am_ledger_append). Arrays, one element per write: $1 kind,
 * $2 action, $3 target, $4 actor id, $5 actor, $6 evidence, $7 note, $8 reason,
 * $9 ttl seconds, $10 claim effect, $11 record seq seen, $12 claim version seen,
 * $13 claim quota (null: not checked), $14 time and $15 claim expiry of an
 * imported event (null: the clock, and $9), $16 the reference of the event's
 * claim, $17 whether a new claim needs its id to be finished.
 */
export const APPEND_IF_UNCHANGED = `
  select idx, appended, ev_seq, ev_at, ev_hash, ev_claimed_at, ev_claim_expires_at
    from am_ledger_append($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::int[], $10::text[], $11::bigint[], $12::text[], $13::int[], $14::timestamptz[], $15::timestamptz[],
                          $16::text[], $17::boolean[])`;

/**
 * A second worker of the holding agent asked for the key without the claim's id
 * (and was refused): from now on the claim is finished with its id alone. Not an
 * event (nothing happened to the claim), and only while it is the claim seen.
 * $1 action, $2 target, $3 the claim's reference.
 */
export const REQUIRE_CLAIM_ID = `
  update ledger_claims set id_required = true
   where action = $1::text and target = $2::text and claim_ref = $3::text and not id_required`;

/**
 * The last event of a key that belonged to the claim of this reference (a late
 * holder's claim, now gone): what happened to it. $1 action, $2 target, $3 reference.
 */
export const CLAIM_FATE = `
  select e.seq, e.kind, e.at, e.claim_expires_at,
         (select n.actor from ledger_events n where n.action = $1::text and n.target = $2::text and n.seq > e.seq
           order by n.seq limit 1) as next_actor,
         (select n.kind from ledger_events n where n.action = $1::text and n.target = $2::text and n.seq > e.seq
           order by n.seq limit 1) as next_kind
    from ledger_events e
   where e.action = $1::text and e.target = $2::text and e.claim_ref = $3::text
   order by e.seq desc
   limit 1`;

// Which scope each action belongs to (ledger_actions; unmapped: LEDGER_DEFAULT_SCOPE).
export const SET_ACTION_SCOPE = `
  insert into ledger_actions (action, scope, set_by) values ($1::text, $2::text, $3::text)
  on conflict (action) do update set scope = excluded.scope, set_by = excluded.set_by, set_at = now()
  returning action, scope, set_by, set_at`;

/** A mapping from a whole export, kept as it was (who, when); nothing back when the action has one here. */
export const RESTORE_ACTION_SCOPE = `
  insert into ledger_actions (action, scope, set_by, set_at) values ($1::text, $2::text, $3::text, $4::timestamptz)
  on conflict (action) do nothing
  returning action, scope, set_by, set_at`;

export const ACTION_SCOPE_OF = `select action, scope, set_by, set_at from ledger_actions where action = $1::text`;

export const DELETE_ACTION_SCOPE = `delete from ledger_actions where action = $1::text returning action, scope, set_by, set_at`;

export const LIST_ACTION_SCOPES = `select action, scope, set_by, set_at from ledger_actions order by action`;

/** Is this exact ledger event already there? (Imports skip it.) $1 kind, $2 action, $3 target, $4 actor, $5 at. */
export const EVENT_PRESENT = `
  select exists (
    select 1 from ledger_events e
     where e.action = $2::text and e.target = $3::text and e.kind = $1::text
       and e.actor = $4::text and e.at = $5::timestamptz) as present`;

/**
 * A key's state: ledger_check's plain read (a later claim or record decides
 * under the lock), and an import's, under the head lock. claim_version is what
 * APPEND_IF_UNCHANGED compares.
 */
export const READ_KEY = `select ${KEY_STATE_COLUMNS} ${KEY_STATE_FROM}`;

/**
 * ledger_list: newest first, keyset on seq, read by a bounded scan
 * (am_ledger_page): at most $7 events, of which those passing the
 * filters come back up to $8, and the $7-th event read comes back marked
 * `last` (then the scan stopped at its bound), with its event columns whether
 * it passed the filters or not (the console's activity feed needs its time). A null filter means "no filter".
 * $1 action, $2 target, $3 actor, $4 since, $5 kind, $6 before seq.
 */
export const LIST_EVENTS = `
  select ${EVENT_COLUMNS}, p.seq as scan_seq, p.kept, p.last
    from am_ledger_page($1::text, $2::text, $3::text, $4::timestamptz, $5::text, $6::bigint, $7::int, $8::int)
         with ordinality as p(seq, kept, last, ord)
    left join ledger_events e on (p.kept or p.last) and e.seq = p.seq
   order by p.ord`;

export const READ_HEAD = `select last_seq, last_hash from ledger_chain_head`;

/** verify and export walk the chain in seq order, one batch at a time. */
export const EVENTS_AFTER = `
  select ${EVENT_COLUMNS}
    from ledger_events e
   where e.seq > $1::bigint and e.seq <= $2::bigint
   order by e.seq
   limit $3::int`;

/** Rows the chain head does not account for (forged inserts). One snapshot for both reads. */
export const EVENTS_BEYOND_HEAD = `
  select count(*)::int as n from ledger_events e
   where e.seq > (select h.last_seq from ledger_chain_head h)`;

/** Claims still held (not expired), soonest expiry first. $1 limit. */
export const OPEN_CLAIMS = `
  select c.action, c.target, c.holder_id, c.holder, c.claimed_at, c.expires_at, c.claim_ref, c.id_required
    from ledger_claims c
   where c.expires_at > now()
   order by c.expires_at, c.action, c.target
   limit $1::int`;

/** Live claims on one action (ledger action set reports them), soonest expiry first. $1 action, $2 limit. */
export const OPEN_CLAIMS_OF_ACTION = `
  select c.target, c.holder, c.expires_at
    from ledger_claims c
   where c.action = $1::text and c.expires_at > now()
   order by c.expires_at, c.target
   limit $2::int`;
