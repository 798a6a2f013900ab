-- The importer identity: a reserved agent that stands for "confirmed before
-- import" when a file of the file-based memory says status: confirmed but
-- names nobody who is an agent here. It exists only as the actor of those
-- events: kind agent, disabled, no scopes, no tokens, so it can never sign in.
-- The service creates it on first use (agent-memory import) and refuses the
-- name for `agent add`; these triggers hold the same rules in the database.

create function am_importer_never_signs_in() returns trigger
  language plpgsql as $$
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

create trigger agent_tokens_not_for_importer before insert on agent_tokens
  for each row execute function am_importer_never_signs_in();
create trigger agents_importer_stays_disabled before update on agents
  for each row execute function am_importer_never_signs_in();
