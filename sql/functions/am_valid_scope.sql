-- A scope name, or '*' (every scope). Kept in one function so every table that
-- stores scopes validates them the same way.
create or replace function am_valid_scope(s text) returns boolean
  language sql immutable strict parallel safe
  as $$ select s = '*' or s ~ '^[a-z0-9][a-z0-9_-]{0,63}$' $$;
