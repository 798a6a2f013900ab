-- Keeps ledger_records (and, on a void, ledger_claims) in step with the chain,
-- in the same statement as the append: a second executed event for an open key
-- fails here with a unique violation, whoever wrote it.
create or replace function am_ledger_track_records() returns trigger
  language plpgsql
  set search_path from current
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
