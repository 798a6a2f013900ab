-- memory_list and the console's review queues read a bounded number of facts
-- per call (security: one call could read every fact of the store).
--
-- Their filters (type, author, scope, the reviewer's scopes, "not written by
-- me") were conditions on a walk of facts in change_seq order, and nothing
-- bounded the walk: a filter that matched little made one call read the whole
-- table. At 100,000 facts on Postgres, `memory_list` with `type` and an author
-- who wrote nothing took 813 ms, and `reviewable: true` for an agent with
-- 100,000 drafts of its own 162-244 ms (any agent can do either; the embedded
-- database answers nobody else meanwhile).
--
-- am_fact_page reads facts in the order of one index, at most p_max of them,
-- and returns those that pass the filters, up to p_want. It stops as soon as
-- it has p_want (a page is usually full after a few rows), and it also returns
-- the p_max-th fact it read, marked `last`: when that row comes back and the
-- page is not full, the scan stopped at its bound and the next call resumes
-- after it. Every row the scan reads is numbered: its WHERE is only the
-- index's range, and every filter is computed (`keep`), never a condition, so
-- a plan cannot read rows it does not count. The range of a status is written
-- as a row comparison on (status, change_seq) and ordered by both: with
-- "status = …" Postgres could also serve change_seq order from the change_seq
-- index with the status as a filter, and rows removed by a filter are rows read
-- but never numbered (an independent review found a queue page reading 105,001
-- facts that way). Sequential scans, bitmap scans and sorts are off inside, so
-- only the intended index can produce the order (a LIMIT bounds the rows a plan
-- returns, not the rows it reads: a sort below it reads them all).
--
-- Orders (p_order): 'newest' (change_seq descending, of status p_status or of
-- any), 'oldest' (change_seq ascending, of status p_status), 'stale' (confirmed
-- facts last reviewed before p_cutoff, the longest unreviewed first, after
-- (p_after_at, p_after_id)). p_from: the change_seq to start after.
-- Filters: readable (p_read_all or a scope in p_read), p_type, p_scope,
-- p_author (an agent's name), not written by p_not_author, and (when
-- p_write_all is not null) a scope the reviewer may write.
create function am_fact_page(
  p_order text, p_status text, p_from bigint, p_cutoff timestamptz, p_after_at timestamptz, p_after_id bigint,
  p_max integer, p_want integer,
  p_read_all boolean, p_read text[], p_type text, p_scope text, p_author text,
  p_not_author bigint, p_write_all boolean, p_write text[])
  returns table (id bigint, change_seq bigint, status_at timestamptz, kept boolean, last boolean)
  language plpgsql stable
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_author bigint := (select a.id from agents a where a.name = p_author);
begin
  if p_author is not null and v_author is null then
    return; -- nobody of that name wrote anything
  end if;
  -- Each branch: the index's order, at most p_max rows (n numbers them), then
  -- the rows that pass the filters or are the p_max-th. The bounds of the
  -- range are index conditions ("p_from is null or …" would be a filter, and a
  -- page deep in the list would read from the start again). The filter is the
  -- same text in every branch.
  if p_order = 'newest' and p_status is null then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.change_seq desc) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where f.change_seq < coalesce(p_from, 9223372036854775807)
         order by f.change_seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'newest' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status desc, f.change_seq desc) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where (f.status, f.change_seq) < (p_status, coalesce(p_from, 9223372036854775807))
           and (f.status, f.change_seq) > (p_status, -1)
         order by f.status desc, f.change_seq desc
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'oldest' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status, f.change_seq) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where (f.status, f.change_seq) > (p_status, coalesce(p_from, -1))
           and (f.status, f.change_seq) < (p_status, 9223372036854775807)
         order by f.status, f.change_seq
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  elsif p_order = 'stale' then
    return query
      select s.id, s.change_seq, s.status_at, s.keep, s.n = p_max from (
        select f.id, f.change_seq, f.status_at, row_number() over (order by f.status_at, f.id) as n,
               ((p_read_all or f.scope = any(p_read)) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or p_write_all or f.scope = any(p_write))) as keep
          from facts f
         where f.status = 'confirmed' and f.status_at < p_cutoff
           and (f.status_at, f.id) > (coalesce(p_after_at, '-infinity'::timestamptz), coalesce(p_after_id, -1))
         order by f.status_at, f.id
         limit p_max) s
      where s.keep or s.n = p_max
      limit p_want + 1;
  else
    raise exception 'am_fact_page: unknown order %', p_order;
  end if;
end $$;
