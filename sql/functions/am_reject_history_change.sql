-- History is never rewritten.
create or replace function am_reject_history_change() returns trigger
  language plpgsql as $$
begin
  raise exception '% is append-only: history rows cannot be changed or deleted', tg_table_name
    using errcode = 'P0001';
end $$;
