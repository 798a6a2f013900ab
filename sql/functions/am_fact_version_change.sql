-- Guards fact_versions (trigger before update or delete): history is never
-- rewritten, with one exception, a redaction: the description and body of a
-- version become '[redacted]' once its tombstone is in fact_redactions
-- (src/facts/trust/redaction.ts), and nothing else of the row changes.
create or replace function am_fact_version_change() returns trigger
  language plpgsql
  set search_path from current
  as $$
begin
  if tg_op = 'UPDATE'
     and new.description = '[redacted]' and new.body = '[redacted]'
     and row(new.fact_id, new.version, new.type, new.author_id, new.created_at) = row(old.fact_id, old.version, old.type, old.author_id, old.created_at)
     and exists (select 1 from fact_redactions r where r.fact_id = old.fact_id and r.version = old.version) then
    return new;
  end if;
  raise exception 'fact_versions is append-only: a version''s text changes only by a recorded redaction' using errcode = 'P0001';
end $$;
