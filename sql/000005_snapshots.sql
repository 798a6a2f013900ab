-- Snapshots: every `agent-memory import` that wrote to the database, with who
-- ran it, from where, and what it did. Kept apart from the ledger on purpose:
-- an import is not an external action, and a ledger event for it would add a
-- line to the next export, so export -> import -> export could never be
-- byte-identical.
create table snapshot_imports (
  id bigint generated always as identity primary key,
  at timestamptz not null default now(),
  -- The agent given with --as (authors and actors the database does not know
  -- were mapped to it); null when none was given.
  as_agent_id bigint references agents (id),
  -- The operating-system user that ran the command, for the audit trail.
  os_user text not null,
  -- The folder as an absolute path on the machine that ran the import.
  source text not null constraint snapshot_imports_source_length check (char_length(source) between 1 and 4096),
  facts_created integer not null constraint snapshot_imports_facts_created check (facts_created >= 0),
  facts_updated integer not null constraint snapshot_imports_facts_updated check (facts_updated >= 0),
  facts_unchanged integer not null constraint snapshot_imports_facts_unchanged check (facts_unchanged >= 0),
  facts_invalid integer not null constraint snapshot_imports_facts_invalid check (facts_invalid >= 0),
  ledger_appended integer not null constraint snapshot_imports_ledger_appended check (ledger_appended >= 0),
  ledger_unchanged integer not null constraint snapshot_imports_ledger_unchanged check (ledger_unchanged >= 0),
  ledger_invalid integer not null constraint snapshot_imports_ledger_invalid check (ledger_invalid >= 0)
);

-- The record of an import is history too.
create trigger snapshot_imports_append_only before update or delete on snapshot_imports
  for each row execute function am_reject_history_change();
create trigger snapshot_imports_no_truncate before truncate on snapshot_imports
  for each statement execute function am_reject_history_change();
