-- Prefix lookups for completion/complete (scopes and fact names, ledger actions
-- and targets: src/facts/complete.ts, src/ledger/complete.ts). In byte order
-- (collate "C") whatever the database's collation: under a linguistic one
-- (en_US.utf8, Docker's default) "a_b" sorts between "ab" and "ac", so the
-- strings with one prefix are not one index range.
create index facts_scope_name_c on facts using btree (scope collate "C", name collate "C");
create index ledger_events_action_target_c on ledger_events using btree (action collate "C", target collate "C");
