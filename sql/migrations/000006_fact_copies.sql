-- The confirmed facts a new draft looked like when it was stored (the duplicate
-- warning of memory_store, src/facts/store.ts), so that recall can say so on
-- the draft's hit: an agent that finds a fresh near-copy next to the reviewed
-- fact it copies should follow the reviewed one. Written once, with the draft's
-- first version; facts are never deleted.
create table fact_copies (
  fact_id bigint not null references facts (id),
  version integer not null,
  copy_of bigint not null references facts (id),
  similarity real not null,
  primary key (fact_id, version, copy_of)
);
