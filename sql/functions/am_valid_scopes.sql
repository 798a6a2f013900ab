create or replace function am_valid_scopes(scopes text[]) returns boolean
  language sql immutable strict parallel safe
  as $$ select coalesce(bool_and(am_valid_scope(s)), true) from unnest(scopes) as s $$;
