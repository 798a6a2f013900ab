// How a scope is spelled. Below config and auth because both check it: config
// refuses a LEDGER_DEFAULT_SCOPE that is not a scope name at start-up (config
// cannot import auth), and auth/scopes.ts validates every scope a caller names.
// The database's check constraints (am_valid_scope, ledger_actions_scope_format)
// hold the same rule as a backstop.
export const SCOPE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
