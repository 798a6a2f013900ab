-- A claim of its own: every claim the service grants has an id that only the
-- worker that made it knows (src/ledger/claim-id.ts); the ledger keeps its
-- SHA-256, the claim's reference, on the claim and on each event of it, which
-- links a claim's events in the chain and in exports without revealing the id.
-- A claim granted before claim ids existed has no reference and is finished as
-- then, by its agent.
--
-- id_required: more than one worker of the holding agent has asked for the key
-- (a second claim without the id was refused, or a worker took over its own
-- agent's expired claim), so recording or releasing it needs the id.
alter table ledger_claims add column claim_ref text constraint ledger_claims_claim_ref_format check (claim_ref ~ '^[0-9a-f]{64}$');
alter table ledger_claims add column id_required boolean not null default false;
alter table ledger_events add column claim_ref text constraint ledger_events_claim_ref_format check (claim_ref ~ '^[0-9a-f]{64}$');
