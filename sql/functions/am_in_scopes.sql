-- Whether a row's scope is among a caller's: every scope (p_all, "*"), or one
-- of p_scopes (readableScopes or writableScopes, src/auth/scopes.ts). The one
-- form of the scope filter in every query; inlined, so an index on the scope
-- serves it as it would the expression itself.
create or replace function am_in_scopes(p_scope text, p_all boolean, p_scopes text[]) returns boolean
  language sql immutable parallel safe
  return p_all or p_scope = any(p_scopes);
