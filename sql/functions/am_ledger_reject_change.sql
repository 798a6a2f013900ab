-- The ledger is append-only: updates, deletes and truncation are refused.
create or replace function am_ledger_reject_change() returns trigger
  language plpgsql
  as $$
begin
  raise exception 'the ledger is append-only: % on % is not allowed', tg_op, tg_table_name
    using errcode = 'P0001', hint = 'Record a new event instead; history is never rewritten.';
end $$;
