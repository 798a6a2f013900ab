-- Whether a fact is stale: confirmed, and last reviewed before am_stale_cutoff.
-- Inlined where it is used, so a query over the confirmed facts' partial index
-- (facts_confirmed_status_at) reads the stale range of status_at only.
create or replace function am_fact_stale(p_status text, p_status_at timestamptz, p_days integer) returns boolean
  language sql stable parallel safe
  return p_status = 'confirmed' and p_status_at < am_stale_cutoff(p_days);
