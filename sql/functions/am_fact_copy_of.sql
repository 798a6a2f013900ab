-- The confirmed fact a draft is a near-copy of: the one the duplicate warning
-- tied it to when that version was stored (fact_copies), the most similar if
-- several, one probe of its key; no row for a fact that is not a draft, or
-- whose original is no longer confirmed. Recall's hits carry it (copyOf): one
-- call per hit of the page. Its own search_path, as every function that names
-- a table (a restore runs with an empty one); a string body, since functions
-- are created before the migrations that make the tables it reads.
create or replace function am_fact_copy_of(p_fact_id bigint, p_version integer, p_status text)
  returns table (scope text, name text)
  language sql stable parallel safe set search_path from current
  as $$
    select o.scope, o.name from fact_copies d join facts o on o.id = d.copy_of
     where p_status = 'draft' and d.fact_id = p_fact_id and d.version = p_version and o.status = 'confirmed'
     order by d.similarity desc, o.id limit 1
  $$;
