-- ledger_list reads a bounded number of events per call, like memory_list
-- (000025): its filters (kind, since, and an action, target or actor without
-- an index of their own) were conditions on a walk of every event in seq
-- order, and a filter that matched little read the whole ledger in one call
-- (100,000 events on Postgres: 7-16 ms, growing with the ledger; any agent may
-- list). am_ledger_page reads events in the order of one index, at most p_max
-- of them, returns those that pass the filters up to p_want, and marks the
-- p_max-th event it read (`last`): when that row comes back and the page is
-- not full, the next call resumes after it. Sorts, sequential and bitmap scans
-- are off inside, so no plan can read more.
--
-- Indexes by filter (new here, ascending, read backwards): an action and a
-- target: (action, target, seq); an actor: (actor, seq); an action alone:
-- (action, seq); otherwise the primary key. Every row a scan reads is
-- numbered: its WHERE is only that index's range, written as a row comparison
-- and ordered by the same columns (as in 000025: with "action = …" Postgres
-- could also serve seq order from the primary key with the action as a
-- filter, and rows a filter removes are read but never numbered). Every other
-- condition is computed (`keep`).
--
-- `since`: events carry the database's clock as read before the chain-head
-- lock, so `at` follows seq to within the time a write waits for that lock
-- (milliseconds; at most the lock timeout). The scan starts its range at the
-- first event of the hour before `since` (ledger_events (at, seq), new here):
-- events before it could only be at or after `since` if the clock had gone
-- back more than an hour between two writes. Without that start, a "since
-- yesterday" list read back through the whole history, a bound at a time.
create index ledger_events_key_seq_asc on ledger_events (action, target, seq);
create index ledger_events_actor_seq_asc on ledger_events (actor, seq);
create index ledger_events_action_seq on ledger_events (action, seq);
create index ledger_events_at on ledger_events (at, seq);

create function am_ledger_page(
  p_action text, p_target text, p_actor text, p_since timestamptz, p_kind text,
  p_before bigint, p_max integer, p_want integer)
  returns table (seq bigint, kept boolean, last boolean)
  language plpgsql stable
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_before bigint := coalesce(p_before, 9223372036854775807);
  v_from bigint := 0;
begin
  if p_since is not null then
    v_from := (select e.seq from ledger_events e where e.at >= p_since - interval '1 hour' order by e.at, e.seq limit 1);
    if v_from is null then
      return; -- nothing that recent
    end if;
  end if;
  -- Each branch: one index's order, at most p_max rows (n numbers them), then
  -- those that pass the filters or are the p_max-th. The same filter in each.
  if p_action is not null and p_target is not null then
    return query
      select s.seq, s.keep, s.n = p_max from (
        select e.seq, row_number() over (order by e.action desc, e.target desc, e.seq desc) as n,
               ((p_actor is null or e.actor = p_actor) and (p_kind is null or e.kind = p_kind)
                and (p_since is null or e.at >= p_since)) as keep
          from ledger_events e
         where (e.action, e.target, e.seq) < (p_action, p_target, v_before)
           and (e.action, e.target, e.seq) >= (p_action, p_target, v_from)
         order by e.action desc, e.target desc, e.seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_actor is not null then
    return query
      select s.seq, s.keep, s.n = p_max from (
        select e.seq, row_number() over (order by e.actor desc, e.seq desc) as n,
               ((p_action is null or e.action = p_action) and (p_target is null or e.target = p_target)
                and (p_kind is null or e.kind = p_kind) and (p_since is null or e.at >= p_since)) as keep
          from ledger_events e
         where (e.actor, e.seq) < (p_actor, v_before) and (e.actor, e.seq) >= (p_actor, v_from)
         order by e.actor desc, e.seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_action is not null then
    return query
      select s.seq, s.keep, s.n = p_max from (
        select e.seq, row_number() over (order by e.action desc, e.seq desc) as n,
               ((p_kind is null or e.kind = p_kind) and (p_since is null or e.at >= p_since)) as keep
          from ledger_events e
         where (e.action, e.seq) < (p_action, v_before) and (e.action, e.seq) >= (p_action, v_from)
         order by e.action desc, e.seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  else
    return query
      select s.seq, s.keep, s.n = p_max from (
        select e.seq, row_number() over (order by e.seq desc) as n,
               ((p_target is null or e.target = p_target) and (p_kind is null or e.kind = p_kind)
                and (p_since is null or e.at >= p_since)) as keep
          from ledger_events e
         where e.seq < v_before and e.seq >= v_from
         order by e.seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  end if;
end $$;
