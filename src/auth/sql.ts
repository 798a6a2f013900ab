// SQL for agents and tokens. Parameterized constants only.

const AGENT_COLUMNS = `a.id, a.name, a.kind, a.write_scopes, a.read_scopes, a.created_at, a.disabled_at`;

export const INSERT_AGENT = `
  insert into agents (name, kind, write_scopes, read_scopes)
  values ($1::text, $2::text, $3::text[], $4::text[])
  on conflict (name) do nothing
  returning id, name, kind, write_scopes, read_scopes, created_at, disabled_at`;

/**
 * An agent as a whole export carries it back (src/snapshots): kind, scopes,
 * creation time and whether it is disabled; never tokens. $5 created_at, $6
 * disabled. Nothing back when the name is taken.
 */
export const RESTORE_AGENT = `
  insert into agents (name, kind, write_scopes, read_scopes, created_at, disabled_at)
  values ($1::text, $2::text, $3::text[], $4::text[], $5::timestamptz, case when $6::boolean then $5::timestamptz end)
  on conflict (name) do nothing
  returning id, name, kind, write_scopes, read_scopes, created_at, disabled_at`;

/** Every agent but the reserved importer, in creation order, for a whole export. $1 the importer's name. */
export const EXPORT_AGENTS = `
  select ${AGENT_COLUMNS} from agents a where a.name <> $1::text order by a.id`;

/** The reserved importer identity: disabled from birth, no scopes. $1 its name. */
export const INSERT_IMPORTER = `
  insert into agents (name, kind, write_scopes, read_scopes, disabled_at)
  values ($1::text, 'agent', '{}', '{}', now())
  on conflict (name) do nothing`;

export const SELECT_AGENT_BY_NAME = `
  select ${AGENT_COLUMNS} from agents a where a.name = $1::text`;

export const LIST_AGENTS = `
  select ${AGENT_COLUMNS},
         (select count(*) from agent_tokens t
           where t.agent_id = a.id and t.revoked_at is null
             and (t.expires_at is null or t.expires_at > now()))::int as active_tokens
    from agents a
   order by a.name`;

/** Every agent's id and name, and whether it is disabled (an import maps names to ids). */
export const AGENT_NAMES = `select id, name, disabled_at is not null as disabled from agents`;

export const SET_AGENT_DISABLED = `
  update agents a set disabled_at = case when $2::boolean then coalesce(a.disabled_at, now()) else null end
   where a.name = $1::text
  returning ${AGENT_COLUMNS}`;

export const SET_AGENT_SCOPES = `
  update agents a set write_scopes = $2::text[], read_scopes = $3::text[]
   where a.name = $1::text
  returning ${AGENT_COLUMNS}`;

/** $5: the sha256 of the issuing form's key, or null; no row back when that form already issued one. */
export const INSERT_TOKEN = `
  insert into agent_tokens (agent_id, token_hash, hint, expires_at, issue_key)
  values ($1::bigint, $2::text, $3::text, $4::timestamptz, $5::text)
  on conflict (issue_key) do nothing
  returning id, agent_id, hint, created_at, expires_at, revoked_at, last_used_at`;

/** The token a form key already issued. $1 the key's sha256. */
export const TOKEN_BY_ISSUE_KEY = `select id from agent_tokens where issue_key = $1::text`;

// A token minted by the OAuth server carries its grant and the client's name, so
// that people who list or revoke it see that the client can mint more.
const TOKEN_COLUMNS = `t.id, a.name as agent, t.hint, t.created_at, t.expires_at, t.revoked_at, t.last_used_at, t.oauth_grant_id,
  (select coalesce(c.metadata->>'client_name', c.client_id) from oauth_grants g join oauth_clients c on c.client_id = g.client_id
    where g.id = t.oauth_grant_id) as oauth_client`;

export const LIST_TOKENS = `
  select ${TOKEN_COLUMNS}
    from agent_tokens t join agents a on a.id = t.agent_id
   where ($1::text is null or a.name = $1::text)
   order by t.id`;

// Revoking a token of an OAuth grant revokes the grant, with its refresh tokens
// and its other access tokens, in the same statement: alone, the access token
// would be replaced at the client's next refresh (a client "revoked" in the
// console would go on working). The grant's reason matches
// `agent-memory grant revoke`.
export const REVOKE_TOKEN = `
  with target as (select id, oauth_grant_id from agent_tokens where id = $1::bigint),
  grant_revoked as (
    update oauth_grants g set revoked_at = coalesce(g.revoked_at, now()), revoked_reason = coalesce(g.revoked_reason, 'revoked by operator')
      from target where g.id = target.oauth_grant_id
    returning g.id),
  refresh_revoked as (
    update oauth_refresh_tokens r set revoked_at = coalesce(r.revoked_at, now())
      from target where r.grant_id = target.oauth_grant_id
    returning r.id),
  siblings_revoked as (
    update agent_tokens s set revoked_at = coalesce(s.revoked_at, now())
      from target where s.oauth_grant_id = target.oauth_grant_id and s.id <> target.id
    returning s.id)
  update agent_tokens t set revoked_at = coalesce(t.revoked_at, now())
    from agents a
   where t.id = $1::bigint and a.id = t.agent_id
  returning ${TOKEN_COLUMNS}, t.revoked_at < now() as already_revoked`;

// What a request needs to know of its agent `a` beside the agent's row, read
// wherever a request's caller is looked up (its token, or an identity provider's
// JWT naming it): where its last write ended in the primary's WAL, for the
// replicas (docs/replicas.md), and whether a withdrawal notice waits for it
// (docs/receipts.md): one probe of a partial index here spares every recall a
// query of its own for the common "none". Only a notice the agent may see counts
// (one of a scope it has lost waits, unread, until the scope is back); the
// notice carries its fact's scope, so authentication never reads facts.
const CALLER_STATE = `
         (select w.lsn::text from agent_write_positions w where w.agent_id = a.id) as write_lsn,
         exists (select 1 from fact_withdrawal_notices n
                  where n.agent_id = a.id and n.seen_at is null and am_may_read(n.scope, a.write_scopes, a.read_scopes)) as notices_waiting`;

// The hot path of every request: one indexed lookup by hash. `now()` comes from
// the database so that expiry does not depend on each replica's clock.
export const VERIFY_TOKEN = `
  select t.id as token_id, t.expires_at, t.revoked_at,
         (t.expires_at is not null and t.expires_at <= now()) as expired,
         (t.last_used_at is null or t.last_used_at < now() - interval '60 seconds') as stale_last_used,
         (t.oauth_grant_id is not null) as oauth_grant,
         a.id as agent_id, a.name, a.kind, a.write_scopes, a.read_scopes, a.disabled_at,${CALLER_STATE}
    from agent_tokens t join agents a on a.id = t.agent_id
   where t.token_hash = $1::text`;

// An identity provider's JWT names its agent: the agent as a caller, as the token
// check reads it (token_id 0: not one of our tokens).
export const CALLER_BY_AGENT_NAME = `
  select 0 as token_id, a.id as agent_id, a.name, a.kind, a.write_scopes, a.read_scopes, a.disabled_at,${CALLER_STATE}
    from agents a
   where a.name = $1::text`;

// Written at most once a minute per token, not on every request.
export const TOUCH_TOKEN = `
  update agent_tokens set last_used_at = now()
   where id = $1::bigint and (last_used_at is null or last_used_at < now() - interval '60 seconds')`;
