// SQL for console sessions. Parameterized constants only. `now()` comes from
// the database so that expiry does not depend on each replica's clock.

/** $1 session hash, $2 agent id, $3 token id, $4 lifetime in minutes. */
export const INSERT_SESSION = `
  insert into console_sessions (session_hash, agent_id, token_id, expires_at)
  values ($1::text, $2::bigint, $3::bigint, now() + make_interval(mins => $4::int))
  returning id, expires_at`;

/**
 * The session of a request, with everything that may have ended it since the
 * last request: its own revocation or expiry, its token's, its agent's.
 * $1 session hash.
 */
export const FIND_SESSION = `
  select s.id, s.token_id,
         (s.revoked_at is not null) as revoked,
         (s.expires_at <= now()) as expired,
         (s.last_seen_at < now() - interval '60 seconds') as stale_seen,
         (t.revoked_at is not null) as token_revoked,
         (t.expires_at is not null and t.expires_at <= now()) as token_expired,
         a.id as agent_id, a.name, a.kind, a.write_scopes, a.read_scopes,
         (a.disabled_at is not null) as agent_disabled,
         (select w.lsn::text from agent_write_positions w where w.agent_id = a.id) as write_lsn
    from console_sessions s
    join agent_tokens t on t.id = s.token_id
    join agents a on a.id = s.agent_id
   where s.session_hash = $1::text`;

// Written at most once a minute per session, not on every request.
export const TOUCH_SESSION = `
  update console_sessions set last_seen_at = now()
   where id = $1::bigint and last_seen_at < now() - interval '60 seconds'`;

/** Ends one session (sign-out, or found ended by its token/agent). $1 session id. */
export const END_SESSION = `
  update console_sessions set revoked_at = coalesce(revoked_at, now())
   where id = $1::bigint`;

// Sessions are not history: rows a week past their end are dropped at each
// sign-in, so the table stays the size of recent use.
export const DELETE_OLD_SESSIONS = `
  delete from console_sessions
   where expires_at < now() - interval '7 days'
      or revoked_at < now() - interval '7 days'`;
