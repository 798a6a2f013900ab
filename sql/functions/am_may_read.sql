-- Whether an agent with these write and read scopes may read p_scope: `shared`
-- is everyone's, "*" among either list is every scope. The service's queries
-- take the same rule as am_in_scopes' arguments, computed in src/auth/scopes.ts
-- (readableScopes); this form serves a query that reads the agent's row itself
-- (the token check's notice probe), where those arguments are not known yet.
create or replace function am_may_read(p_scope text, p_write_scopes text[], p_read_scopes text[]) returns boolean
  language sql immutable parallel safe
  return p_scope = 'shared' or p_scope = any(p_write_scopes) or p_scope = any(p_read_scopes) or '*' = any(p_write_scopes) or '*' = any(p_read_scopes);
