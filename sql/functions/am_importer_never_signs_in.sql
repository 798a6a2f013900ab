-- The reserved agent "importer" (author of imported history) stays disabled,
-- keeps its name and never gets a token: nothing can act as it.
create or replace function am_importer_never_signs_in() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  if tg_table_name = 'agent_tokens' then
    if exists (select 1 from agents where id = new.agent_id and name = 'importer') then
      raise exception 'the reserved agent "importer" never gets a token' using errcode = 'P0001';
    end if;
  elsif old.name = 'importer' and (new.name <> old.name or new.disabled_at is null) then
    raise exception 'the reserved agent "importer" stays disabled and keeps its name' using errcode = 'P0001';
  end if;
  return new;
end $$;
