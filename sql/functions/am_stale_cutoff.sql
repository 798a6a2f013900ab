-- When a fact stops being fresh: a confirmed fact nobody has reviewed since
-- before this time is stale (STALE_AFTER_DAYS). The one definition of the
-- rule, with am_fact_stale: recall, memory_get's and memory_list's marks, the
-- review queues, the promotion that allows a new review, and /metrics all ask it.
create or replace function am_stale_cutoff(p_days integer) returns timestamptz
  language sql stable parallel safe
  return now() - make_interval(days => p_days);
