-- Guards fact_events (trigger before update or delete): history is never
-- rewritten, with one exception, a redaction: the reason given for a version
-- (a review may quote the text that had to go) becomes '[redacted]' once the
-- version's tombstone is in fact_redactions (src/facts/trust/redaction.ts), and
-- nothing else of the row changes.
create or replace function am_fact_event_change() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  if tg_op = 'UPDATE'
     and new.reason = '[redacted]'
     and row(new.id, new.fact_id, new.version, new.kind, new.actor_id, new.at, new.from_status, new.to_status, new.scope)
         = row(old.id, old.fact_id, old.version, old.kind, old.actor_id, old.at, old.from_status, old.to_status, old.scope)
     and exists (select 1 from fact_redactions r where r.fact_id = old.fact_id and r.version = old.version) then
    return new;
  end if;
  raise exception 'fact_events is append-only: a reason changes only by a recorded redaction of its version' using errcode = 'P0001';
end $$;
