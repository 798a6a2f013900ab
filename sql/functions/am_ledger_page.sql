-- One page of ledger_list as event seqs, newest first: walks the index that
-- fits the filters (action and target, actor, action, or every event), from
-- p_before down to the first event recorded within an hour before p_since,
-- reads at most p_max rows and keeps those that pass the other filters, at
-- most p_want + 1; `last` marks the p_max-th row read (scanCut, as
-- am_fact_page).
create or replace function am_ledger_page(
  p_action text, p_target text, p_actor text, p_since timestamptz, p_kind text,
  p_before bigint, p_max integer, p_want integer)
  returns table (seq bigint, kept boolean, last boolean)
  language plpgsql stable
  set search_path from current
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_before bigint := coalesce(p_before, 9223372036854775807);
  v_from bigint := 0;
begin
  if p_since is not null then
    v_from := (select e.seq from ledger_events e where e.recorded_at >= p_since - interval '1 hour' order by e.recorded_at, e.seq limit 1);
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
