-- Agents (the identities that call the service) and their bearer tokens.

create extension if not exists pg_trgm;

-- A scope name, or '*' (every scope). Kept in one function so every table that
-- stores scopes validates them the same way.
create function am_valid_scope(s text) returns boolean
  language sql immutable strict parallel safe
  as $$ select s = '*' or s ~ '^[a-z0-9][a-z0-9_-]{0,63}$' $$;

create function am_valid_scopes(scopes text[]) returns boolean
  language sql immutable strict parallel safe
  as $$ select coalesce(bool_and(am_valid_scope(s)), true) from unnest(scopes) as s $$;

create table agents (
  id bigint generated always as identity primary key,
  name text not null unique
    constraint agents_name_format check (name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  kind text not null default 'agent'
    constraint agents_kind check (kind in ('agent', 'human')),
  -- Scopes the agent may read and write. 'shared' is readable by everyone anyway.
  write_scopes text[] not null default '{shared}'
    constraint agents_write_scopes_valid check (am_valid_scopes(write_scopes)),
  -- Extra scopes the agent may only read.
  read_scopes text[] not null default '{}'
    constraint agents_read_scopes_valid check (am_valid_scopes(read_scopes)),
  created_at timestamptz not null default now(),
  disabled_at timestamptz
);

create table agent_tokens (
  id bigint generated always as identity primary key,
  agent_id bigint not null references agents (id),
  -- sha256 of the secret, hex. The secret itself is shown once and never stored.
  token_hash text not null unique
    constraint agent_tokens_hash_format check (token_hash ~ '^[0-9a-f]{64}$'),
  -- The first characters of the secret, so a human can tell tokens apart.
  hint text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  constraint agent_tokens_expiry_after_creation check (expires_at is null or expires_at > created_at)
);

create index agent_tokens_agent_id on agent_tokens (agent_id);
