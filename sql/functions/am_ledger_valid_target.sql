-- A target, as the ledger's check constraints accept it: 1-200 characters, no
-- surrounding blanks, no control characters.
create or replace function am_ledger_valid_target(t text) returns boolean
  language sql immutable called on null input parallel safe
  as $$ select char_length(t) between 1 and 200 and t = btrim(t) and t !~ '[[:cntrl:]]' $$;
