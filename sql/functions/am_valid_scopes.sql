-- Every element of a scope list is a valid scope (am_valid_scope). The agents
-- table's check constraints call it, also while pg_restore copies the rows
-- under an empty search_path: a standard SQL body binds am_valid_scope when
-- this is created, so no name is looked up then.
create or replace function am_valid_scopes(scopes text[]) returns boolean
  language sql immutable strict parallel safe
  return (select coalesce(bool_and(am_valid_scope(s)), true) from unnest(scopes) as s);
