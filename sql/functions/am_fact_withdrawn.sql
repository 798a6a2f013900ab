-- A fact was deprecated (a review, a supersession, an import's replay): every
-- agent that read it since its last confirmation (fact_readers; all readers
-- when it was never confirmed) is owed a notice, except the one withdrawing it.
-- In the same transaction as the event, by construction: no path that
-- deprecates can forget it.
create or replace function am_fact_withdrawn() returns trigger
  language plpgsql set search_path from current as $$
begin
  insert into fact_withdrawal_notices (agent_id, event_id, fact_id, scope, read_at, read_version)
  select r.agent_id, new.id, new.fact_id, f.scope, r.last_at, r.last_version
    from fact_readers r
    join facts f on f.id = new.fact_id
   where r.fact_id = new.fact_id
     and r.agent_id <> new.actor_id
     and r.last_at > coalesce((select max(e.at) from fact_events e
                                where e.fact_id = new.fact_id and e.kind = 'confirmed' and e.id < new.id), '-infinity')
  on conflict do nothing;
  return null;
end $$;
