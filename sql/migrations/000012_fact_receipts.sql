-- Recall receipts: which agent was served which version of a fact, when, and by
-- which tool, resource or prompt (never what it asked). Written in batches off
-- the request path (src/receipts.ts): one row per agent, fact version, status and
-- tool within a batch, `served` saying how many times (at is the first);
-- pruned after RECEIPTS_RETENTION_DAYS. Append-only: rows are never changed,
-- only pruned (deleted) once old.
--
-- fact_id references no key on purpose: a foreign key would make each batch take
-- a key-share lock on every fact it names, and wait behind a review holding that
-- fact's row (select … for update), or deadlock with one that locks a second
-- fact (a supersession). Facts are never deleted, so the id stays good.
create table fact_receipts (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  agent_id bigint not null references agents (id) on delete cascade,
  fact_id bigint not null,
  version integer not null check (version >= 1),
  status text not null check (status in ('draft', 'confirmed', 'deprecated')),
  via text not null check (char_length(via) between 1 and 64),
  served integer not null default 1 check (served >= 1)
);
create index fact_receipts_fact_at on fact_receipts (fact_id, at);
create index fact_receipts_at on fact_receipts (at);
create trigger fact_receipts_append_only before update on fact_receipts for each row execute function am_reject_history_change();

-- One row per fact and reader, kept with the receipts by the same batch: what
-- memory_get and the console show as "read by", and whom a withdrawal reaches,
-- read without walking a fact's receipts. Its fact_id, like the receipts', has
-- no foreign key (the same batch writes it).
create table fact_readers (
  fact_id bigint not null,
  agent_id bigint not null references agents (id) on delete cascade,
  first_at timestamptz not null,
  last_at timestamptz not null,
  last_version integer not null,
  reads bigint not null,
  versions integer[] not null,
  primary key (fact_id, agent_id)
);
create index fact_readers_last_at on fact_readers (last_at);

-- A withdrawal (a deprecation event) owed to an agent that read the fact since
-- it was last confirmed: written by am_fact_withdrawn when the event is, shown
-- once at that agent's next memory_recall or start-task (seen_at), and only
-- while the agent may still read the fact's scope.
create table fact_withdrawal_notices (
  agent_id bigint not null references agents (id) on delete cascade,
  event_id bigint not null references fact_events (id),
  fact_id bigint not null references facts (id),
  read_at timestamptz not null,
  read_version integer not null,
  seen_at timestamptz,
  primary key (agent_id, event_id)
);
create index fact_withdrawal_notices_unseen on fact_withdrawal_notices (agent_id, event_id) where seen_at is null;
create index fact_withdrawal_notices_event on fact_withdrawal_notices (event_id);

create trigger fact_events_withdrawn after insert on fact_events for each row when (new.kind = 'deprecated') execute function am_fact_withdrawn();
