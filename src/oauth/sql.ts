// SQL of the built-in authorization server. Parameterized constants only.
// `now()` comes from the database so expiry does not depend on replica clocks.

export const SELECT_CLIENT = `
  select client_id, secret_hash, metadata, from_metadata_document,
         (fetched_at is not null and fetched_at > now() - make_interval(secs => $2::int)) as fresh
    from oauth_clients where client_id = $1::text`;

export const INSERT_CLIENT = `
  insert into oauth_clients (client_id, secret_hash, metadata)
  values ($1::text, $2::text, $3::jsonb)`;

// A metadata document client: stored on first use, refreshed when fetched again.
export const UPSERT_DOCUMENT_CLIENT = `
  insert into oauth_clients (client_id, metadata, from_metadata_document, fetched_at)
  values ($1::text, $2::jsonb, true, now())
  on conflict (client_id) do update set metadata = excluded.metadata, fetched_at = now()
   where oauth_clients.from_metadata_document`;

export const INSERT_REQUEST = `
  insert into oauth_requests (id_hash, csrf_hash, client_id, redirect_uri, code_challenge, state, resource, expires_at)
  values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, now() + make_interval(secs => $8::int))`;

export const SELECT_REQUEST_CLIENT = `select client_id from oauth_requests where id_hash = $1::text`;

export const SELECT_REQUEST_FOR_UPDATE = `
  select r.id_hash, r.csrf_hash, r.client_id, r.redirect_uri, r.code_challenge, r.state, r.resource,
         r.signed_in_agent_id, r.completed_at, (r.expires_at <= now()) as expired
    from oauth_requests r where r.id_hash = $1::text
     for update`;

export const SIGN_IN_REQUEST = `
  update oauth_requests set signed_in_agent_id = $2::bigint where id_hash = $1::text`;

export const COMPLETE_REQUEST = `
  update oauth_requests set completed_at = now() where id_hash = $1::text`;

// Old requests are of no use to anyone: swept as new ones arrive.
export const DELETE_OLD_REQUESTS = `
  delete from oauth_requests where expires_at < now() - interval '1 day'`;

export const INSERT_GRANT = `
  insert into oauth_grants (client_id, agent_id, approved_by, resource)
  values ($1::text, $2::bigint, $3::bigint, $4::text)
  returning id`;

export const INSERT_CODE = `
  insert into oauth_codes (code_hash, grant_id, code_challenge, redirect_uri, expires_at)
  values ($1::text, $2::bigint, $3::text, $4::text, now() + make_interval(secs => $5::int))`;

const CODE_COLUMNS = `
  c.grant_id, c.code_challenge, c.redirect_uri, c.used_at, (c.expires_at <= now()) as expired,
  g.client_id, g.resource, g.revoked_at as grant_revoked_at, g.agent_id, a.name as agent, a.disabled_at`;

const SELECT_CODE = `
  select ${CODE_COLUMNS}
    from oauth_codes c join oauth_grants g on g.id = c.grant_id join agents a on a.id = g.agent_id
   where c.code_hash = $1::text`;

export const SELECT_CODE_FOR_UPDATE = `${SELECT_CODE} for update of c`;

export const USE_CODE = `update oauth_codes set used_at = now() where code_hash = $1::text`;

export const SELECT_REFRESH_FOR_UPDATE = `
  select r.id, r.grant_id, r.used_at, r.revoked_at, (r.expires_at <= now()) as expired,
         g.client_id, g.resource, g.revoked_at as grant_revoked_at, g.agent_id, a.name as agent, a.disabled_at
    from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id join agents a on a.id = g.agent_id
   where r.token_hash = $1::text
     for update of r`;

export const USE_REFRESH = `update oauth_refresh_tokens set used_at = now() where id = $1::bigint`;

export const INSERT_REFRESH = `
  insert into oauth_refresh_tokens (token_hash, grant_id, expires_at)
  values ($1::text, $2::bigint, now() + make_interval(secs => $3::int))`;

export const INSERT_ACCESS_TOKEN = `
  insert into agent_tokens (agent_id, token_hash, hint, expires_at, oauth_grant_id)
  values ($1::bigint, $2::text, $3::text, now() + make_interval(secs => $4::int), $5::bigint)`;

// Revoking a grant revokes everything it minted, in one statement each.
export const REVOKE_GRANT = `
  update oauth_grants set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, $2::text)
   where id = $1::bigint`;

export const REVOKE_GRANT_ACCESS_TOKENS = `
  update agent_tokens set revoked_at = coalesce(revoked_at, now()) where oauth_grant_id = $1::bigint`;

export const REVOKE_GRANT_REFRESH_TOKENS = `
  update oauth_refresh_tokens set revoked_at = coalesce(revoked_at, now()) where grant_id = $1::bigint`;

// For RFC 7009: which grant a presented token belongs to (refresh or access).
export const SELECT_GRANT_OF_REFRESH = `
  select r.grant_id, g.client_id from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
   where r.token_hash = $1::text`;

export const SELECT_GRANT_OF_ACCESS = `
  select t.id as token_id, t.oauth_grant_id as grant_id, g.client_id
    from agent_tokens t join oauth_grants g on g.id = t.oauth_grant_id
   where t.token_hash = $1::text`;

export const REVOKE_ACCESS_TOKEN = `
  update agent_tokens set revoked_at = coalesce(revoked_at, now()) where id = $1::bigint`;

// The audience check of the resource server: the grant behind an access token.
export const SELECT_TOKEN_GRANT = `
  select t.id as token_id, g.id, g.resource, g.client_id, g.revoked_at
    from agent_tokens t join oauth_grants g on g.id = t.oauth_grant_id
   where t.token_hash = $1::text`;

export const LIST_GRANTS = `
  select g.id, g.client_id, c.metadata ->> 'client_name' as client_name, a.name as agent, h.name as approved_by,
         g.resource, g.created_at, g.revoked_at, g.revoked_reason,
         (select max(t.last_used_at) from agent_tokens t where t.oauth_grant_id = g.id) as last_used_at,
         exists (select 1 from oauth_codes c where c.grant_id = g.id and c.used_at is not null) as exchanged,
         exists (select 1 from oauth_codes c where c.grant_id = g.id and c.used_at is null and c.expires_at > now()) as code_pending
    from oauth_grants g
    join oauth_clients c on c.client_id = g.client_id
    join agents a on a.id = g.agent_id
    join agents h on h.id = g.approved_by
   where ($1::text is null or a.name = $1::text)
   order by g.id`;

export const SELECT_GRANT_FOR_UPDATE = `select id, revoked_at from oauth_grants where id = $1::bigint for update`;
