-- Supersession (memory_store's `supersedes`): a new fact names the fact it
-- replaces; when someone other than its author confirms it, the old fact is
-- deprecated in the same transaction and points back at its successor. One
-- successor at most: the confirmation locks the old row and refuses a second.
alter table facts
  add column supersedes_id bigint references facts (id),
  add column superseded_by_id bigint references facts (id);

-- The console's and memory_get's "replacements proposed" for a fact.
create index facts_supersedes on facts (supersedes_id) where supersedes_id is not null;
