-- Supersession (memory_store's `supersedes`): a new fact names the fact it
-- replaces; when someone other than its author confirms it, the old fact is
-- deprecated in the same transaction and points at its successor. One
-- successor at most: the confirmation locks the old row and refuses a second.
alter table facts
  add column supersedes_id bigint references facts (id),
  add column superseded_by_id bigint references facts (id);

-- memory_get's "proposed replacements" of a fact.
create index facts_supersedes on facts (supersedes_id) where supersedes_id is not null;

-- Redaction: the tombstone of a fact version whose text a human removed (its
-- description and body read REDACTED_TEXT everywhere since). Append-only; a
-- version's text can be overwritten only once such a row exists
-- (am_fact_version_change, am_check_fact_change).
create table fact_redactions (
  fact_id bigint not null,
  version integer not null,
  redacted_by bigint not null references agents (id),
  redacted_at timestamptz not null default now(),
  reason text not null check (char_length(reason) between 1 and 2000 and reason ~ '\S'),
  primary key (fact_id, version),
  foreign key (fact_id, version) references fact_versions (fact_id, version)
);
create trigger fact_redactions_append_only before delete or update on fact_redactions for each row execute function am_reject_history_change();

drop trigger fact_versions_append_only on fact_versions;
create trigger fact_versions_append_only before delete or update on fact_versions for each row execute function am_fact_version_change();

-- The tombstone of graph text a human removed: which entity (by id: its name
-- may be what had to go), what (the entity or one observation), who, when, why.
create table graph_redactions (
  id bigint generated always as identity primary key,
  scope text not null,
  entity_id bigint not null,
  kind text not null check (kind in ('entity', 'observation')),
  redacted_by bigint not null references agents (id),
  redacted_at timestamptz not null default now(),
  reason text not null check (char_length(reason) between 1 and 2000 and reason ~ '\S')
);
create index graph_redactions_scope_id on graph_redactions (scope, id);
create trigger graph_redactions_append_only before delete or update on graph_redactions for each row execute function am_reject_history_change();

-- /metrics' review backlog by scope (src/facts/health.ts): the drafts alone,
-- so a scrape reads the backlog, not the table.
create index facts_drafts on facts (scope, updated_at) where status = 'draft';

-- The console's Health page: one sample of each scope's health per day (the
-- day's last reading of /metrics or of the page), kept 400 days.
create table memory_health_days (
  day date not null,
  scope text not null,
  drafts integer not null,
  oldest_draft_seconds integer not null,
  stale integer not null,
  primary key (day, scope)
);

-- Reviews per agent over the last days (the Health page), without reading older events.
create index fact_events_reviews_at on fact_events (at) where kind in ('confirmed', 'deprecated');
