-- An agent's write: the chain head locked and the key read as above, plus, read
-- under the same lock, what the permission and quota checks need: the action's
-- scope, the agent's write scopes, kind and state, and how many unexpired
-- claims it holds. One round trip, so the head lock is held no longer than before.
create or replace function am_ledger_lock_for_agent(p_action text, p_target text, p_agent_id bigint, p_default_scope text)
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
