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
