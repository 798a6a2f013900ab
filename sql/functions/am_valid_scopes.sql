-- Every element of a scope list is a valid scope (am_valid_scope).
create or replace function am_valid_scopes(scopes text[]) returns boolean
  language sql immutable strict parallel safe
  as $$ select coalesce(bool_and(am_valid_scope(s)), true) from unnest(scopes) as s $$;
