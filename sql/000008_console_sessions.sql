-- Console sessions: a human signs in to the web console with an agent token and
-- gets a server-side session. Only the sha256 of the random session id is
-- stored (like tokens), so a database reader cannot take over a session.
-- Every request re-reads the row joined with its token and agent, so revoking
-- the token, disabling the agent or expiry end the session on the next request,
-- on every replica.
create table console_sessions (
  id bigint generated always as identity primary key,
  session_hash text not null unique
    constraint console_sessions_hash_format check (session_hash ~ '^[0-9a-f]{64}$'),
  agent_id bigint not null references agents (id),
  -- The token the person signed in with: revoking it ends the session.
  token_id bigint not null references agent_tokens (id),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  constraint console_sessions_expiry_after_creation check (expires_at > created_at)
);

create index console_sessions_token on console_sessions (token_id);
create index console_sessions_agent on console_sessions (agent_id);
