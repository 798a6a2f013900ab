-- Guards a fact's row (trigger before update on facts): id, name, scope and
-- creation time never change; content changes only as a new version, which
-- starts as a draft; status goes draft → confirmed or deprecated, confirmed →
-- deprecated; and the review fields of an unchanged status change only when a
-- confirmed fact is confirmed again, with a later status_at. A redaction of
-- the current version (src/facts/trust/redaction.ts) replaces its description,
-- body and review reason with '[redacted]' once its tombstone is recorded.
create or replace function am_check_fact_change() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  if new.id <> old.id or new.name <> old.name or new.scope <> old.scope or new.created_at <> old.created_at then
    raise exception 'a fact''s id, name, scope and creation time never change' using errcode = 'P0001';
  end if;
  if new.version <> old.version then
    if new.version <> old.version + 1 or new.status <> 'draft' then
      raise exception 'a new version of a fact must be version % and a draft', old.version + 1 using errcode = 'P0001';
    end if;
  elsif new.status <> old.status then
    if not ((old.status = 'draft' and new.status in ('confirmed', 'deprecated'))
            or (old.status = 'confirmed' and new.status = 'deprecated')) then
      raise exception 'a fact cannot go from % to %', old.status, new.status using errcode = 'P0001';
    end if;
  elsif new.description = '[redacted]' and new.body = '[redacted]' and row(new.type, new.author_id, new.status, new.status_by_id, new.status_at) is not distinct from row(old.type, old.author_id, old.status, old.status_by_id, old.status_at)
        and (new.status_reason is not distinct from old.status_reason or new.status_reason = '[redacted]')
        and exists (select 1 from fact_redactions r where r.fact_id = old.id and r.version = old.version) then
    return new;
  elsif row(new.description, new.type, new.body, new.author_id) is distinct from row(old.description, old.type, old.body, old.author_id) then
    raise exception 'changed content must be stored as a new version' using errcode = 'P0001';
  elsif row(new.status_by_id, new.status_at, new.status_reason) is distinct from row(old.status_by_id, old.status_at, old.status_reason)
        and not (old.status = 'confirmed' and new.status_at > old.status_at) then
    raise exception 'only a confirmed fact is reviewed again, and a new review is later than the last' using errcode = 'P0001';
  end if;
  return new;
end $$;
