-- One page of memory_list (and of the console's fact lists) as ids: walks one
-- index in the order asked (newest or oldest change, or stale: confirmed the
-- longest ago), reads at most p_max rows, and keeps those that pass the
-- caller's filters (readable scopes, type, scope, author; p_write: writable
-- scopes, for the review queue), at most p_want + 1. `last` marks the p_max-th
-- row read, where the next page resumes when the walk stopped short (scanCut):
-- the work of a call is bounded whatever the table holds.
create or replace function am_fact_page(
  p_order text, p_status text, p_from bigint, p_cutoff timestamptz, p_after_at timestamptz, p_after_id bigint,
  p_max integer, p_want integer,
  p_read_all boolean, p_read text[], p_type text, p_scope text, p_author text,
  p_not_author bigint, p_write_all boolean, p_write text[])
  returns table (id bigint, change_seq bigint, status_at timestamptz, kept boolean, last boolean)
  language plpgsql stable
  set search_path from current
  set enable_seqscan = off
  set enable_bitmapscan = off
  set enable_sort = off
  as $$
declare
  v_author bigint := (select a.id from agents a where a.name = p_author);
begin
  if p_author is not null and v_author is null then
    v_author := 0; -- no agent has id 0: the same walk as for one who wrote nothing here
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
               (am_in_scopes(f.scope, p_read_all, p_read) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or am_in_scopes(f.scope, p_write_all, p_write))) as keep
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
               (am_in_scopes(f.scope, p_read_all, p_read) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or am_in_scopes(f.scope, p_write_all, p_write))) as keep
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
               (am_in_scopes(f.scope, p_read_all, p_read) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or am_in_scopes(f.scope, p_write_all, p_write))) as keep
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
               (am_in_scopes(f.scope, p_read_all, p_read) and (p_type is null or f.type = p_type) and (p_scope is null or f.scope = p_scope)
                and (v_author is null or f.author_id = v_author) and (p_not_author is null or f.author_id <> p_not_author)
                and (p_write_all is null or am_in_scopes(f.scope, p_write_all, p_write))) as keep
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
