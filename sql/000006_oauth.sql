-- OAuth 2.1 for hosted MCP clients (the built-in authorization server).
-- A grant is one person's approval that one client acts as one agent. Every
-- access token a grant mints is an ordinary row of agent_tokens (linked back to
-- the grant), so revocation, disabling, whoami and the token verifier work the
-- same for OAuth clients as for static tokens, on every replica.
-- Secrets (client secrets, codes, refresh tokens, pending-request ids) are
-- stored only as sha256 hex, like agent tokens.

create table oauth_clients (
  id bigint generated always as identity primary key,
  -- A UUID from dynamic registration, or the https URL of a client ID metadata document.
  client_id text not null unique
    constraint oauth_clients_client_id_length check (char_length(client_id) between 1 and 2048),
  -- sha256 of the client secret for confidential clients; null for public clients.
  secret_hash text constraint oauth_clients_secret_hash_format check (secret_hash ~ '^[0-9a-f]{64}$'),
  -- The registered metadata (RFC 7591) as answered to the client, without the secret.
  metadata jsonb not null,
  -- True when the metadata came from a client ID metadata document, fetched at fetched_at.
  from_metadata_document boolean not null default false,
  fetched_at timestamptz,
  created_at timestamptz not null default now()
);

create table oauth_grants (
  id bigint generated always as identity primary key,
  client_id text not null references oauth_clients (client_id) on update cascade,
  -- The agent the client acts as, and the human who approved it.
  agent_id bigint not null references agents (id),
  approved_by bigint not null references agents (id),
  -- The protected resource (RFC 8707) every token of this grant is for.
  resource text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  -- Why it was revoked (person, client, reused refresh token, reused code), for `grant list`.
  revoked_reason text
);

create index oauth_grants_agent_id on oauth_grants (agent_id);

-- An authorization request waiting for the person at the consent page. Bound to
-- the browser by a CSRF cookie (only its hash is here) and short-lived.
create table oauth_requests (
  id_hash text primary key constraint oauth_requests_id_hash_format check (id_hash ~ '^[0-9a-f]{64}$'),
  csrf_hash text not null constraint oauth_requests_csrf_hash_format check (csrf_hash ~ '^[0-9a-f]{64}$'),
  client_id text not null references oauth_clients (client_id) on update cascade,
  redirect_uri text not null,
  code_challenge text not null,
  state text,
  resource text not null,
  -- The human who signed in at the consent page (step 1), before choosing the agent.
  signed_in_agent_id bigint references agents (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  completed_at timestamptz
);

create table oauth_codes (
  code_hash text primary key constraint oauth_codes_code_hash_format check (code_hash ~ '^[0-9a-f]{64}$'),
  grant_id bigint not null references oauth_grants (id),
  code_challenge text not null,
  redirect_uri text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set by the one exchange that may use it; a second use revokes the grant.
  used_at timestamptz
);

create index oauth_codes_grant_id on oauth_codes (grant_id);

create table oauth_refresh_tokens (
  id bigint generated always as identity primary key,
  token_hash text not null unique constraint oauth_refresh_tokens_hash_format check (token_hash ~ '^[0-9a-f]{64}$'),
  grant_id bigint not null references oauth_grants (id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  -- Set when it was exchanged for its successor (rotation); a second use revokes the grant.
  used_at timestamptz,
  revoked_at timestamptz
);

create index oauth_refresh_tokens_grant_id on oauth_refresh_tokens (grant_id);

alter table agent_tokens add column oauth_grant_id bigint references oauth_grants (id);
create index agent_tokens_oauth_grant_id on agent_tokens (oauth_grant_id) where oauth_grant_id is not null;
