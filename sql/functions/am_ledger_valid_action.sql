-- An action name, as the ledger's check constraints accept it: lowercase words
-- joined by _ or -, at most 200 characters (ACTION_PATTERN in
-- src/ledger/validate.ts is the same rule for the service's own errors).
create or replace function am_ledger_valid_action(a text) returns boolean
  language sql immutable called on null input parallel safe
  as $$ select char_length(a) <= 200 and a ~ '^[a-z0-9]+([_-][a-z0-9]+)*$' $$;
