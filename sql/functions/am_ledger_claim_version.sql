-- A claim as one comparable string (holder, claimed at, expires at). A write
-- reads the claim, decides, and hands this back to am_ledger_append_many,
-- which appends only if the claim under the head lock is still the same.
-- Stable, not immutable (extract from timestamptz is stable), so that it can
-- be inlined: a SQL function the planner cannot inline is planned again by
-- every statement that calls it.
create or replace function am_ledger_claim_version(p_holder_id bigint, p_claimed_at timestamptz, p_expires_at timestamptz) returns text
  language sql stable parallel safe
  as $$ select p_holder_id::text || '|' || extract(epoch from p_claimed_at)::text || '|' || extract(epoch from p_expires_at)::text $$;
