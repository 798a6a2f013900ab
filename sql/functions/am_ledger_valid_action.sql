create or replace function am_ledger_valid_action(a text) returns boolean
  language sql immutable called on null input parallel safe
  as $$ select char_length(a) <= 200 and a ~ '^[a-z0-9]+([_-][a-z0-9]+)*$' $$;
