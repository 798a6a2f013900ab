-- to_char is only stable (locale-dependent patterns), hence stable here.
create or replace function am_ledger_json_time(v timestamptz) returns text
  language sql stable parallel safe
  as $$ select coalesce('"' || to_char(v at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null') $$;
