-- The handoff ledger: an append-only, hash-chained log of external actions
-- (publishing, deploying, paid API calls) and of the claims that reserve them.
--
-- ledger_events      every event, forever: claimed, renewed, released,
--                    taken_over (an expired claim taken by another agent), executed.
--                    Triggers reject UPDATE, DELETE and TRUNCATE.
-- ledger_claims      the current claim per (action, target): mutable state whose
--                    every change is also written to ledger_events.
-- ledger_chain_head  one row: the last seq and hash. Every ledger write locks it
--                    first (select … for update), which serializes the hash chain
--                    and makes check-then-write exact even across replicas.

create function am_ledger_valid_action(a text) returns boolean
  language sql immutable strict parallel safe
  as $$ select char_length(a) <= 200 and a ~ '^[a-z0-9]+([_-][a-z0-9]+)*$' $$;

create function am_ledger_valid_target(t text) returns boolean
  language sql immutable strict parallel safe
  as $$ select char_length(t) between 1 and 200 and t = btrim(t) and t !~ '[[:cntrl:]]' $$;

create table ledger_events (
  -- Gap-free, assigned from the chain head (not a sequence), so a deleted row
  -- shows up as a missing number when the chain is verified.
  seq bigint primary key constraint ledger_events_seq_positive check (seq > 0),
  kind text not null
    constraint ledger_events_kind check (kind in ('claimed', 'renewed', 'released', 'taken_over', 'executed')),
  action text not null constraint ledger_events_action_format check (am_ledger_valid_action(action)),
  target text not null constraint ledger_events_target_format check (am_ledger_valid_target(target)),
  actor_id bigint not null references agents (id),
  -- The agent's name copied into the row, so the hash never depends on a join.
  actor text not null,
  -- Millisecond precision, taken from the database clock inside the transaction,
  -- so the hash recomputed from the stored value always matches.
  at timestamptz not null constraint ledger_events_at_ms check (at = date_trunc('milliseconds', at)),
  evidence text
    constraint ledger_events_evidence_format check (evidence ~ '^https?://' and char_length(evidence) <= 2048),
  note text constraint ledger_events_note_length check (char_length(note) <= 2000),
  reason text constraint ledger_events_reason_length check (char_length(reason) between 1 and 1000),
  claim_expires_at timestamptz,
  prev_hash text not null constraint ledger_events_prev_hash_format check (prev_hash ~ '^[0-9a-f]{64}$'),
  hash text not null constraint ledger_events_hash_format check (hash ~ '^[0-9a-f]{64}$'),
  -- Evidence exactly on executed records; an expiry exactly on claim events; a
  -- reason on releases and take-overs.
  constraint ledger_events_evidence_iff_executed check ((kind = 'executed') = (evidence is not null)),
  constraint ledger_events_expiry_iff_claim check ((kind in ('claimed', 'renewed', 'taken_over')) = (claim_expires_at is not null)),
  constraint ledger_events_reason_required check (kind not in ('released', 'taken_over') or reason is not null),
  constraint ledger_events_expiry_after_at check (claim_expires_at is null or claim_expires_at > at)
);

-- Exactly once: the backstop under the chain-head lock. Also the lookup for ledger_check.
create unique index ledger_events_executed_once on ledger_events (action, target) where kind = 'executed';
-- ledger_list filters, newest first. No index on `at`: it grows with seq, so a
-- `since` filter is served by walking the primary key backwards. Every index here
-- is maintained under the chain-head lock, so there are no others.
create index ledger_events_key_seq on ledger_events (action, target, seq desc);
create index ledger_events_actor_seq on ledger_events (actor, seq desc);

create function am_ledger_reject_change() returns trigger
  language plpgsql
  as $$
begin
  raise exception 'the ledger is append-only: % on % is not allowed', tg_op, tg_table_name
    using errcode = 'P0001', hint = 'Record a new event instead; history is never rewritten.';
end $$;

create trigger ledger_events_append_only
  before update or delete or truncate on ledger_events
  for each statement execute function am_ledger_reject_change();

create table ledger_claims (
  action text not null constraint ledger_claims_action_format check (am_ledger_valid_action(action)),
  target text not null constraint ledger_claims_target_format check (am_ledger_valid_target(target)),
  holder_id bigint not null references agents (id),
  holder text not null,
  claimed_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (action, target),
  constraint ledger_claims_expiry_after_claim check (expires_at > claimed_at)
);

create table ledger_chain_head (
  id boolean primary key default true constraint ledger_chain_head_single_row check (id),
  last_seq bigint not null constraint ledger_chain_head_seq check (last_seq >= 0),
  last_hash text not null constraint ledger_chain_head_hash_format check (last_hash ~ '^[0-9a-f]{64}$')
);

-- The genesis link: the first event's prev_hash is 64 zeros.
insert into ledger_chain_head (last_seq, last_hash) values (0, repeat('0', 64));

create trigger ledger_chain_head_keep
  before delete or truncate on ledger_chain_head
  for each statement execute function am_ledger_reject_change();

-- The first statement of every ledger write: lock the chain head, then read the
-- state of one (action, target) under that lock. A plpgsql function because each
-- of its statements takes a fresh snapshot (READ COMMITTED): the state read after
-- the lock sees everything committed by the writer we may have waited for. One
-- round trip instead of two. `now_at` is the event time, at millisecond precision.
create function am_ledger_lock_head(p_action text, p_target text)
  returns table (
    head_seq bigint,
    head_hash text,
    now_at timestamptz,
    exec_seq bigint,
    exec_actor_id bigint,
    exec_actor text,
    exec_at timestamptz,
    exec_evidence text,
    exec_note text,
    exec_hash text,
    claim_holder_id bigint,
    claim_holder text,
    claim_claimed_at timestamptz,
    claim_expires_at timestamptz
  )
  language plpgsql volatile
  as $$
declare
  h record;
begin
  select c.last_seq, c.last_hash into strict h from ledger_chain_head c for update;
  return query
    select h.last_seq, h.last_hash, date_trunc('milliseconds', clock_timestamp()),
           e.seq, e.actor_id, e.actor, e.at, e.evidence, e.note, e.hash,
           c.holder_id, c.holder, c.claimed_at, c.expires_at
      from (select 1) as one
      left join ledger_events e on e.action = p_action and e.target = p_target and e.kind = 'executed'
      left join ledger_claims c on c.action = p_action and c.target = p_target;
end $$;
