-- The console's stale queue (src/facts/review-sql.ts STALE_QUEUE): confirmed
-- facts by the age of their last review, oldest first. Without it the queue
-- would read every confirmed fact to find the few that are stale.
create index facts_confirmed_status_at on facts (status_at, id) where status = 'confirmed';
