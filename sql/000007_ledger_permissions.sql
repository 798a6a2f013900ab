-- Ledger write permission, claim quota and voiding (docs/ledger-permissions.md).
--
-- ledger_actions   which scope each action belongs to; an agent claims, records
--                  or releases an action only if it may write that scope.
--                  Actions without a row belong to LEDGER_DEFAULT_SCOPE.
-- voided events    an operator (a human agent) voids the current record or claim
--                  of one (action, target) with a reason. The void is a new event
--                  in the hash chain: nothing is rewritten, `ledger verify` holds,
--                  and the key is open again.
-- ledger_records   the current executed record per (action, target): mutable
--                  state (like ledger_claims) kept by a trigger on ledger_events.
--                  Its primary key is now the exactly-once backstop, since a
--                  voided key may legitimately be executed a second time.

create table ledger_actions (
  action text primary key constraint ledger_actions_action_format check (am_ledger_valid_action(action)),
  scope text not null constraint ledger_actions_scope_format check (scope ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  set_by text not null,
  set_at timestamptz not null default now()
);

alter table ledger_events drop constraint ledger_events_kind;
alter table ledger_events add constraint ledger_events_kind
  check (kind in ('claimed', 'renewed', 'released', 'taken_over', 'executed', 'voided'));
alter table ledger_events drop constraint ledger_events_reason_required;
alter table ledger_events add constraint ledger_events_reason_required
  check (kind not in ('released', 'taken_over', 'voided') or reason is not null);

create table ledger_records (
  action text not null,
  target text not null,
  seq bigint not null unique references ledger_events (seq),
  primary key (action, target)
);

insert into ledger_records (action, target, seq)
  select e.action, e.target, e.seq from ledger_events e where e.kind = 'executed';

drop index ledger_events_executed_once;

-- Keeps ledger_records (and, on a void, ledger_claims) in step with the chain,
-- in the same statement as the append: a second executed event for an open key
-- fails here with a unique violation, whoever wrote it.
create function am_ledger_track_records() returns trigger
  language plpgsql
  as $$
begin
  if new.kind = 'executed' then
    insert into ledger_records (action, target, seq) values (new.action, new.target, new.seq);
  elsif new.kind = 'voided' then
    delete from ledger_records r where r.action = new.action and r.target = new.target;
    delete from ledger_claims c where c.action = new.action and c.target = new.target;
  end if;
  return null;
end $$;

create trigger ledger_events_track_records
  after insert on ledger_events
  for each row execute function am_ledger_track_records();

-- The claim quota counts one holder's claims.
create index ledger_claims_holder on ledger_claims (holder_id, expires_at);

-- Same contract as before; the executed record now comes from ledger_records.
create or replace function am_ledger_lock_head(p_action text, p_target text)
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
      left join ledger_records r on r.action = p_action and r.target = p_target
      left join ledger_events e on e.seq = r.seq
      left join ledger_claims c on c.action = p_action and c.target = p_target;
end $$;

-- An agent's write: the chain head locked and the key read as above, plus, read
-- under the same lock, what the permission and quota checks need: the action's
-- scope, the agent's write scopes, kind and state, and how many unexpired
-- claims it holds. One round trip, so the head lock is held no longer than before.
create function am_ledger_lock_for_agent(p_action text, p_target text, p_agent_id bigint, p_default_scope text)
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
    claim_expires_at timestamptz,
    action_scope text,
    agent_write_scopes text[],
    agent_kind text,
    agent_disabled boolean,
    agent_open_claims int
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
           c.holder_id, c.holder, c.claimed_at, c.expires_at,
           coalesce(la.scope, p_default_scope),
           a.write_scopes, a.kind, a.disabled_at is not null,
           (select count(*)::int from ledger_claims o
             where o.holder_id = p_agent_id and o.expires_at > clock_timestamp())
      from (select 1) as one
      left join ledger_records r on r.action = p_action and r.target = p_target
      left join ledger_events e on e.seq = r.seq
      left join ledger_claims c on c.action = p_action and c.target = p_target
      left join ledger_actions la on la.action = p_action
      left join agents a on a.id = p_agent_id;
end $$;
