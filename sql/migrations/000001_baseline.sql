-- The schema, as one baseline: tables, their constraints, indexes and triggers. The
-- functions they use are in sql/functions/ (applied before any migration), and
-- later changes to tables and data are the migrations after this one. A database
-- made before the baseline (by its 44 numbered migrations) is recognised by
-- src/db/migrate.ts and marked as at it.

create extension if not exists pg_trgm;
-- Scopes lead the trigram indexes (btree_gin), so a search looks only at its scope's rows.
create extension if not exists btree_gin;

-- Orders every change to a fact (facts.change_seq).
create sequence fact_change_seq;

-- Agents: who writes. A token belongs to one agent; its scopes say what it reads and writes
-- ("*" every scope). Kind human marks people: only they sign in to the console and void
-- ledger entries. The importer (agent-memory import) never signs in.
create table agents (
    id bigint generated always as identity,
    name text not null,
    kind text default 'agent'::text not null,
    write_scopes text[] default '{shared}'::text[] not null,
    read_scopes text[] default '{}'::text[] not null,
    created_at timestamp with time zone default now() not null,
    disabled_at timestamp with time zone,
    constraint agents_kind check ((kind = any (array['agent'::text, 'human'::text]))),
    constraint agents_name_format check ((name ~ '^[a-z0-9][a-z0-9._-]{0,63}$'::text)),
    constraint agents_read_scopes_valid check (am_valid_scopes(read_scopes)),
    constraint agents_write_scopes_valid check (am_valid_scopes(write_scopes)),
    constraint agents_name_key unique (name),
    constraint agents_pkey primary key (id)
);
create trigger agents_importer_stays_disabled before update on agents for each row execute function am_importer_never_signs_in();

-- OAuth clients: registered (RFC 7591) or fetched from a client metadata document.
create table oauth_clients (
    id bigint generated always as identity,
    client_id text not null,
    secret_hash text,
    metadata jsonb not null,
    from_metadata_document boolean default false not null,
    fetched_at timestamp with time zone,
    created_at timestamp with time zone default now() not null,
    constraint oauth_clients_client_id_length check (((char_length(client_id) >= 1) and (char_length(client_id) <= 2048))),
    constraint oauth_clients_secret_hash_format check ((secret_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint oauth_clients_client_id_key unique (client_id),
    constraint oauth_clients_pkey primary key (id)
);

-- A person's approval that a client acts as one agent, until revoked.
create table oauth_grants (
    id bigint generated always as identity,
    client_id text not null,
    agent_id bigint not null,
    approved_by bigint not null,
    resource text not null,
    created_at timestamp with time zone default now() not null,
    revoked_at timestamp with time zone,
    revoked_reason text,
    constraint oauth_grants_pkey primary key (id),
    constraint oauth_grants_agent_id_fkey foreign key (agent_id) references agents(id),
    constraint oauth_grants_approved_by_fkey foreign key (approved_by) references agents(id),
    constraint oauth_grants_client_id_fkey foreign key (client_id) references oauth_clients(client_id) on update cascade
);
create index oauth_grants_agent_id on oauth_grants using btree (agent_id);

-- Bearer tokens, stored only as SHA-256 hashes; revocable, optionally expiring. A token
-- issued by an OAuth grant names it. issue_key makes a retried console issue idempotent.
create table agent_tokens (
    id bigint generated always as identity,
    agent_id bigint not null,
    token_hash text not null,
    hint text not null,
    created_at timestamp with time zone default now() not null,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    last_used_at timestamp with time zone,
    oauth_grant_id bigint,
    issue_key text,
    constraint agent_tokens_expiry_after_creation check (((expires_at is null) or (expires_at > created_at))),
    constraint agent_tokens_hash_format check ((token_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint agent_tokens_issue_key_format check ((issue_key ~ '^[0-9a-f]{64}$'::text)),
    constraint agent_tokens_pkey primary key (id),
    constraint agent_tokens_token_hash_key unique (token_hash),
    constraint agent_tokens_agent_id_fkey foreign key (agent_id) references agents(id),
    constraint agent_tokens_oauth_grant_id_fkey foreign key (oauth_grant_id) references oauth_grants(id)
);
create index agent_tokens_agent_id on agent_tokens using btree (agent_id);
create unique index agent_tokens_issue_key on agent_tokens using btree (issue_key);
create index agent_tokens_oauth_grant_id on agent_tokens using btree (oauth_grant_id) where (oauth_grant_id is not null);
create trigger agent_tokens_not_for_importer before insert on agent_tokens for each row execute function am_importer_never_signs_in();

-- The key that seals page cursors (one row, made at creation).
create table am_cursor_key (
    id boolean default true not null,
    key text not null,
    constraint am_cursor_key_format check ((key ~ '^[0-9a-f]{64}$'::text)),
    constraint am_cursor_key_single_row check (id),
    constraint am_cursor_key_pkey primary key (id)
);

-- Console sign-ins: the session cookie's hash, its CSRF secret, the token it came from.
create table console_sessions (
    id bigint generated always as identity,
    session_hash text not null,
    agent_id bigint not null,
    token_id bigint not null,
    created_at timestamp with time zone default now() not null,
    last_seen_at timestamp with time zone default now() not null,
    expires_at timestamp with time zone not null,
    revoked_at timestamp with time zone,
    constraint console_sessions_expiry_after_creation check ((expires_at > created_at)),
    constraint console_sessions_hash_format check ((session_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint console_sessions_pkey primary key (id),
    constraint console_sessions_session_hash_key unique (session_hash),
    constraint console_sessions_agent_id_fkey foreign key (agent_id) references agents(id),
    constraint console_sessions_token_id_fkey foreign key (token_id) references agent_tokens(id)
);
create index console_sessions_agent on console_sessions using btree (agent_id);
create index console_sessions_token on console_sessions using btree (token_id);

-- Facts: one row per (scope, name), the current version. search_head and search_body
-- are the words recall matches; duplicate_text is the reading the duplicate warning
-- compares (am_duplicate_text). Lifecycle rules are checked by am_check_fact_change.
-- change_seq orders every change (a new version or a review) for keyset pages.
create table facts (
    id bigint generated always as identity,
    scope text not null,
    name text not null,
    description text not null,
    type text not null,
    body text not null,
    status text default 'draft'::text not null,
    version integer default 1 not null,
    author_id bigint not null,
    created_at timestamp with time zone default now() not null,
    updated_at timestamp with time zone default now() not null,
    status_by_id bigint,
    status_at timestamp with time zone,
    status_reason text,
    change_seq bigint default nextval('fact_change_seq'::regclass) not null,
    search_head tsvector generated always as ((setweight(to_tsvector('english'::regconfig, ((name || ' '::text) || description)), 'A'::"char") || setweight(to_tsvector('simple'::regconfig, ((name || ' '::text) || description)), 'A'::"char"))) stored,
    search_body tsvector generated always as (setweight(to_tsvector('english'::regconfig, "left"(body, 100000)), 'B'::"char")) stored,
    duplicate_text text generated always as (am_duplicate_text(((name || ' '::text) || description))) stored,
    constraint facts_body_length check (char_length(body) between 1 and 1000000 and body ~ '\S'),
    constraint facts_description_format check (char_length(description) between 1 and 200 and description ~ '\S' and description !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029]'),
    constraint facts_draft_unpromoted check (((status = 'draft'::text) = (status_by_id is null))),
    constraint facts_name_format check (((name ~ '^[a-z0-9]+(-[a-z0-9]+)*$'::text) and (char_length(name) <= 64))),
    constraint facts_no_self_approval check (((status <> 'confirmed'::text) or (status_by_id <> author_id))),
    constraint facts_promotion_complete check ((((status_by_id is null) and (status_at is null) and (status_reason is null)) or ((status_by_id is not null) and (status_at is not null) and (status_reason is not null)))),
    constraint facts_scope_format check ((am_valid_scope(scope) and (scope <> '*'::text))),
    constraint facts_status check ((status = any (array['draft'::text, 'confirmed'::text, 'deprecated'::text]))),
    constraint facts_type check ((type = any (array['feedback'::text, 'project'::text, 'reference'::text]))),
    constraint facts_version_positive check ((version >= 1)),
    constraint facts_change_seq_unique unique (change_seq),
    constraint facts_name_unique unique (name, scope),
    constraint facts_pkey primary key (id),
    constraint facts_author_id_fkey foreign key (author_id) references agents(id),
    constraint facts_status_by_id_fkey foreign key (status_by_id) references agents(id)
);
create index facts_confirmed_status_at on facts using btree (status_at, id) where (status = 'confirmed'::text);
create index facts_description_lower on facts using btree (lower(description));
create index facts_duplicate_trgm on facts using gin (duplicate_text gin_trgm_ops) with (gin_pending_list_limit='64');
create index facts_exact_trgm on facts using gin (scope, (((((name || '
'::text) || description) || '
'::text) || "left"(body, 1000))) gin_trgm_ops) with (gin_pending_list_limit='64');
create unique index facts_id_scope on facts using btree (id, scope);
create index facts_near_words on facts using gin (scope, am_near_words(((((name || '
'::text) || description) || '
'::text) || "left"(body, 1000)))) with (gin_pending_list_limit='64');
create index facts_search_words on facts using gin (search_head, search_body) with (gin_pending_list_limit='64');
create index facts_status_change_seq on facts using btree (status, change_seq);
create trigger facts_lifecycle before update on facts for each row execute function am_check_fact_change();
create trigger facts_no_truncate before truncate on facts for each statement execute function am_reject_history_change();
create trigger facts_words_insert after insert on facts referencing new table as new_facts for each statement execute function am_fact_words_inserted();
create trigger facts_words_update after update of scope, name, description, body on facts for each row when (((old.scope is distinct from new.scope) or (old.name is distinct from new.name) or (old.description is distinct from new.description) or ("left"(old.body, 1000) is distinct from "left"(new.body, 1000)))) execute function am_fact_words();

-- Every version of every fact, append-only.
create table fact_versions (
    fact_id bigint not null,
    version integer not null,
    description text not null,
    type text not null,
    body text not null,
    author_id bigint not null,
    created_at timestamp with time zone default now() not null,
    constraint fact_versions_version_positive check ((version >= 1)),
    constraint fact_versions_pkey primary key (fact_id, version),
    constraint fact_versions_author_id_fkey foreign key (author_id) references agents(id),
    constraint fact_versions_fact_id_fkey foreign key (fact_id) references facts(id)
);
create trigger fact_versions_append_only before delete or update on fact_versions for each row execute function am_reject_history_change();
create trigger fact_versions_no_truncate before truncate on fact_versions for each statement execute function am_reject_history_change();

-- Who did what to a fact, when and why (created, updated, confirmed, deprecated), append-only.
create table fact_events (
    id bigint generated always as identity,
    fact_id bigint not null,
    version integer not null,
    kind text not null,
    actor_id bigint not null,
    at timestamp with time zone default now() not null,
    from_status text,
    to_status text not null,
    reason text,
    scope text not null,
    constraint fact_events_from_status check ((from_status = any (array['draft'::text, 'confirmed'::text, 'deprecated'::text]))),
    constraint fact_events_kind check ((kind = any (array['created'::text, 'updated'::text, 'confirmed'::text, 'deprecated'::text]))),
    constraint fact_events_reason_given check (((kind = any (array['confirmed'::text, 'deprecated'::text])) = (reason is not null))),
    constraint fact_events_reason_length check (reason is null or (char_length(reason) between 1 and 2000 and reason ~ '\S')),
    constraint fact_events_shape check ((((kind = 'created'::text) and (from_status is null) and (to_status = 'draft'::text)) or ((kind = 'updated'::text) and (from_status is not null) and (to_status = 'draft'::text)) or ((kind = 'confirmed'::text) and (from_status = any (array['draft'::text, 'confirmed'::text])) and (to_status = 'confirmed'::text)) or ((kind = 'deprecated'::text) and (from_status = any (array['draft'::text, 'confirmed'::text])) and (to_status = 'deprecated'::text)))),
    constraint fact_events_to_status check ((to_status = any (array['draft'::text, 'confirmed'::text, 'deprecated'::text]))),
    constraint fact_events_pkey primary key (id),
    constraint fact_events_actor_id_fkey foreign key (actor_id) references agents(id),
    constraint fact_events_fact_id_version_fkey foreign key (fact_id, version) references fact_versions(fact_id, version),
    constraint fact_events_fact_scope foreign key (fact_id, scope) references facts(id, scope)
);
create index fact_events_fact on fact_events using btree (fact_id, id);
create index fact_events_scope_id on fact_events using btree (scope, id);
create trigger fact_events_append_only before delete or update on fact_events for each row execute function am_reject_history_change();
create trigger fact_events_no_truncate before truncate on fact_events for each statement execute function am_reject_history_change();

-- The recall vocabulary: each word of a scope's facts with its one-letter deletions, so a
-- typo finds the word it misspells by an index lookup (am_fact_words keeps it).
create table fact_words (
    scope text not null,
    word text not null,
    deletes text[] not null
);
create index fact_words_deletes on fact_words using gin (scope, deletes) with (gin_pending_list_limit='64');
create unique index fact_words_word on fact_words using btree (word, scope collate "C");

-- What the graph's deletes removed, and who asked (the console's activity feed).
create table graph_deletions (
    id bigint generated always as identity,
    scope text not null,
    kind text not null,
    subject text not null,
    detail text not null,
    deleted_by bigint not null,
    deleted_at timestamp with time zone default now() not null,
    constraint graph_deletions_kind check ((kind = any (array['entity'::text, 'observation'::text, 'relation'::text]))),
    constraint graph_deletions_pkey primary key (id),
    constraint graph_deletions_deleted_by_fkey foreign key (deleted_by) references agents(id)
);
create index graph_deletions_deleted_by on graph_deletions using btree (deleted_by, id);
create index graph_deletions_scope_id on graph_deletions using btree (scope, id);

-- The knowledge graph: entities with a type, in a scope. Names are matched through
-- am_graph_key (SHA-256): names may be longer than a btree entry.
create table graph_entities (
    id bigint generated always as identity,
    scope text not null,
    name text not null,
    entity_type text not null,
    created_by bigint not null,
    created_at timestamp with time zone default now() not null,
    constraint graph_entities_name_valid check (am_graph_text_ok(name, false)),
    constraint graph_entities_scope_valid check (((scope <> '*'::text) and am_valid_scope(scope))),
    constraint graph_entities_type_valid check (am_graph_text_ok(entity_type, true)),
    constraint graph_entities_pkey primary key (id),
    constraint graph_entities_created_by_fkey foreign key (created_by) references agents(id)
)
with (autovacuum_vacuum_insert_scale_factor='0.01');
create unique index graph_entities_id_scope on graph_entities using btree (id, scope);
create index graph_entities_scope_id on graph_entities using btree (scope, id);
create unique index graph_entities_scope_name on graph_entities using btree (scope, am_graph_key(name));
create index graph_entities_scope_name_trgm on graph_entities using gin (scope, name gin_trgm_ops) with (gin_pending_list_limit='256');
create index graph_entities_scope_type_trgm on graph_entities using gin (scope, entity_type gin_trgm_ops) with (gin_pending_list_limit='256');

-- An entity's observations, in insertion order; each text once per entity.
create table graph_observations (
    id bigint generated always as identity,
    entity_id bigint not null,
    content text not null,
    created_by bigint not null,
    created_at timestamp with time zone default now() not null,
    scope text not null,
    constraint graph_observations_content_valid check (am_graph_text_ok(content, true)),
    constraint graph_observations_pkey primary key (id),
    constraint graph_observations_created_by_fkey foreign key (created_by) references agents(id),
    constraint graph_observations_entity_scope foreign key (entity_id, scope) references graph_entities(id, scope) on delete cascade
)
with (autovacuum_vacuum_insert_scale_factor='0.01');
create unique index graph_observations_entity_content on graph_observations using btree (entity_id, am_graph_key(content));
create index graph_observations_entity_id on graph_observations using btree (entity_id, id);
create index graph_observations_scope_content_trgm on graph_observations using gin (scope, content gin_trgm_ops) with (gin_pending_list_limit='256');
create index graph_observations_scope_entity_id on graph_observations using btree (scope, entity_id, id);
create index graph_observations_scope_id on graph_observations using btree (scope, id);

-- Directed typed relations between names (the ends need not be entities, as in the
-- reference server), keyed like entities.
create table graph_relations (
    id bigint generated always as identity,
    scope text not null,
    from_name text not null,
    to_name text not null,
    relation_type text not null,
    created_by bigint not null,
    created_at timestamp with time zone default now() not null,
    constraint graph_relations_from_valid check (am_graph_text_ok(from_name, false)),
    constraint graph_relations_scope_valid check (((scope <> '*'::text) and am_valid_scope(scope))),
    constraint graph_relations_to_valid check (am_graph_text_ok(to_name, false)),
    constraint graph_relations_type_valid check (am_graph_text_ok(relation_type, true)),
    constraint graph_relations_pkey primary key (id),
    constraint graph_relations_created_by_fkey foreign key (created_by) references agents(id)
);
create index graph_relations_from_id on graph_relations using btree (scope, am_graph_key(from_name), id);
create unique index graph_relations_key on graph_relations using btree (scope, am_graph_key(from_name), am_graph_key(to_name), am_graph_key(relation_type));
create index graph_relations_scope_id on graph_relations using btree (scope, id);
create index graph_relations_to_id on graph_relations using btree (scope, am_graph_key(to_name), id);

-- Which scope an action belongs to (unmapped actions: LEDGER_DEFAULT_SCOPE).
create table ledger_actions (
    action text not null,
    scope text not null,
    set_by text not null,
    set_at timestamp with time zone default now() not null,
    constraint ledger_actions_action_format check (am_ledger_valid_action(action)),
    constraint ledger_actions_scope_format check ((scope ~ '^[a-z0-9][a-z0-9_-]{0,63}$'::text)),
    constraint ledger_actions_pkey primary key (action)
);

-- The ledger's chain head: the last event's number and hash, locked by every append.
create table ledger_chain_head (
    id boolean default true not null,
    last_seq bigint not null,
    last_hash text not null,
    constraint ledger_chain_head_hash_format check ((last_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint ledger_chain_head_seq check ((last_seq >= 0)),
    constraint ledger_chain_head_single_row check (id),
    constraint ledger_chain_head_pkey primary key (id)
);
create trigger ledger_chain_head_keep before delete or truncate on ledger_chain_head for each statement execute function am_ledger_reject_change();

-- The current claim of each (action, target): who holds it and until when.
create table ledger_claims (
    action text not null,
    target text not null,
    holder_id bigint not null,
    holder text not null,
    claimed_at timestamp with time zone not null,
    expires_at timestamp with time zone not null,
    constraint ledger_claims_action_format check (am_ledger_valid_action(action)),
    constraint ledger_claims_expiry_after_claim check ((expires_at > claimed_at)),
    constraint ledger_claims_target_format check (am_ledger_valid_target(target)),
    constraint ledger_claims_pkey primary key (action, target),
    constraint ledger_claims_holder_id_fkey foreign key (holder_id) references agents(id)
);
create index ledger_claims_holder on ledger_claims using btree (holder_id, expires_at);

-- The ledger: append-only, hash-chained events (claimed, renewed, taken over, executed,
-- released, voided). am_ledger_track_records keeps ledger_records and ledger_claims.
create table ledger_events (
    seq bigint not null,
    kind text not null,
    action text not null,
    target text not null,
    actor_id bigint not null,
    actor text not null,
    at timestamp with time zone not null,
    evidence text,
    note text,
    reason text,
    claim_expires_at timestamp with time zone,
    prev_hash text not null,
    hash text not null,
    recorded_at timestamp with time zone default clock_timestamp() not null,
    constraint ledger_events_action_format check (am_ledger_valid_action(action)),
    constraint ledger_events_at_ms check ((at = date_trunc('milliseconds'::text, at))),
    constraint ledger_events_evidence_format check (((evidence ~ '^https?://'::text) and (char_length(evidence) <= 2048))),
    constraint ledger_events_evidence_iff_executed check (((kind = 'executed'::text) = (evidence is not null))),
    constraint ledger_events_expiry_after_at check (((claim_expires_at is null) or (claim_expires_at > at))),
    constraint ledger_events_expiry_iff_claim check (((kind = any (array['claimed'::text, 'renewed'::text, 'taken_over'::text])) = (claim_expires_at is not null))),
    constraint ledger_events_hash_format check ((hash ~ '^[0-9a-f]{64}$'::text)),
    constraint ledger_events_kind check ((kind = any (array['claimed'::text, 'renewed'::text, 'released'::text, 'taken_over'::text, 'executed'::text, 'voided'::text]))),
    constraint ledger_events_note_length check ((char_length(note) <= 2000)),
    constraint ledger_events_prev_hash_format check ((prev_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint ledger_events_reason_length check (((char_length(reason) >= 1) and (char_length(reason) <= 1000))),
    constraint ledger_events_reason_required check (((kind <> all (array['released'::text, 'taken_over'::text, 'voided'::text])) or (reason is not null))),
    constraint ledger_events_seq_positive check ((seq > 0)),
    constraint ledger_events_target_format check (am_ledger_valid_target(target)),
    constraint ledger_events_pkey primary key (seq),
    constraint ledger_events_actor_id_fkey foreign key (actor_id) references agents(id)
);
create index ledger_events_action_seq on ledger_events using btree (action, seq);
create index ledger_events_actor_seq on ledger_events using btree (actor, seq desc);
create index ledger_events_actor_seq_asc on ledger_events using btree (actor, seq);
create index ledger_events_key_seq on ledger_events using btree (action, target, seq desc);
create index ledger_events_key_seq_asc on ledger_events using btree (action, target, seq);
create index ledger_events_recorded on ledger_events using btree (recorded_at, seq);
create trigger ledger_events_append_only before delete or update or truncate on ledger_events for each statement execute function am_ledger_reject_change();
create trigger ledger_events_track_records after insert on ledger_events for each row execute function am_ledger_track_records();

-- The current executed record of each (action, target): at most one (exactly once).
create table ledger_records (
    action text not null,
    target text not null,
    seq bigint not null,
    constraint ledger_records_pkey primary key (action, target),
    constraint ledger_records_seq_key unique (seq),
    constraint ledger_records_seq_fkey foreign key (seq) references ledger_events(seq)
);

-- Authorization codes (hashed), single use.
create table oauth_codes (
    code_hash text not null,
    grant_id bigint not null,
    code_challenge text not null,
    redirect_uri text not null,
    created_at timestamp with time zone default now() not null,
    expires_at timestamp with time zone not null,
    used_at timestamp with time zone,
    constraint oauth_codes_code_hash_format check ((code_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint oauth_codes_pkey primary key (code_hash),
    constraint oauth_codes_grant_id_fkey foreign key (grant_id) references oauth_grants(id)
);
create index oauth_codes_grant_id on oauth_codes using btree (grant_id);

-- Refresh tokens (hashed), rotated on use.
create table oauth_refresh_tokens (
    id bigint generated always as identity,
    token_hash text not null,
    grant_id bigint not null,
    created_at timestamp with time zone default now() not null,
    expires_at timestamp with time zone not null,
    used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    constraint oauth_refresh_tokens_hash_format check ((token_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint oauth_refresh_tokens_pkey primary key (id),
    constraint oauth_refresh_tokens_token_hash_key unique (token_hash),
    constraint oauth_refresh_tokens_grant_id_fkey foreign key (grant_id) references oauth_grants(id)
);
create index oauth_refresh_tokens_grant_id on oauth_refresh_tokens using btree (grant_id);

-- Authorization requests waiting for the consent page.
create table oauth_requests (
    id_hash text not null,
    csrf_hash text not null,
    client_id text not null,
    redirect_uri text not null,
    code_challenge text not null,
    state text,
    resource text not null,
    signed_in_agent_id bigint,
    created_at timestamp with time zone default now() not null,
    expires_at timestamp with time zone not null,
    completed_at timestamp with time zone,
    constraint oauth_requests_csrf_hash_format check ((csrf_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint oauth_requests_id_hash_format check ((id_hash ~ '^[0-9a-f]{64}$'::text)),
    constraint oauth_requests_pkey primary key (id_hash),
    constraint oauth_requests_client_id_fkey foreign key (client_id) references oauth_clients(client_id) on update cascade,
    constraint oauth_requests_signed_in_agent_id_fkey foreign key (signed_in_agent_id) references agents(id)
);

-- What each agent-memory import did, append-only.
create table snapshot_imports (
    id bigint generated always as identity,
    at timestamp with time zone default now() not null,
    as_agent_id bigint,
    os_user text not null,
    source text not null,
    facts_created integer not null,
    facts_updated integer not null,
    facts_unchanged integer not null,
    facts_invalid integer not null,
    ledger_appended integer not null,
    ledger_unchanged integer not null,
    ledger_invalid integer not null,
    constraint snapshot_imports_facts_created check ((facts_created >= 0)),
    constraint snapshot_imports_facts_invalid check ((facts_invalid >= 0)),
    constraint snapshot_imports_facts_unchanged check ((facts_unchanged >= 0)),
    constraint snapshot_imports_facts_updated check ((facts_updated >= 0)),
    constraint snapshot_imports_ledger_appended check ((ledger_appended >= 0)),
    constraint snapshot_imports_ledger_invalid check ((ledger_invalid >= 0)),
    constraint snapshot_imports_ledger_unchanged check ((ledger_unchanged >= 0)),
    constraint snapshot_imports_source_length check (((char_length(source) >= 1) and (char_length(source) <= 4096))),
    constraint snapshot_imports_pkey primary key (id),
    constraint snapshot_imports_as_agent_id_fkey foreign key (as_agent_id) references agents(id)
);
create trigger snapshot_imports_append_only before delete or update on snapshot_imports for each row execute function am_reject_history_change();
create trigger snapshot_imports_no_truncate before truncate on snapshot_imports for each statement execute function am_reject_history_change();

-- The chain starts from a hash of zeros; the cursor key is random per database.
insert into ledger_chain_head (last_seq, last_hash) values (0, repeat('0', 64));
insert into am_cursor_key (key) values (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
