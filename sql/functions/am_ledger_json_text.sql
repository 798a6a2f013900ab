-- A text as JSON, for am_ledger_event_hash; null as null.
create or replace function am_ledger_json_text(v text) returns text
  language sql stable parallel safe
  as $$ select coalesce(to_json(v)::text, 'null') $$;
