-- Facts that look like a new one (memory_store's "similar facts" warning):
-- first facts with the same description, then those whose text without
-- function words (am_duplicate_text) is trigram-similar past p_threshold,
-- live facts before deprecated ones, in the caller's scopes, at most p_limit.
-- A new fact of function words only ("how-to: How to do it.") has no text
-- left to compare, and asked for it the index would hand over every fact, so
-- only its same-description copies are looked up. Each lookup reads at most
-- 100 rows.
create or replace function am_similar_facts(
  p_text text, p_threshold real, p_all boolean, p_scopes text[], p_new_scope text, p_new_name text, p_limit integer, p_description text)
  returns table (id bigint, similarity real)
  language plpgsql
  set search_path from current
  set enable_seqscan = off
  set plan_cache_mode = force_generic_plan
  as $$
declare
  v_text text := am_duplicate_text(p_text);
begin
  return query
    select c.id, c.similarity
      from (select f.id,
                   case when v_text = '' then similarity(f.name || ' ' || f.description, p_text) else similarity(f.duplicate_text, v_text) end as similarity
              from facts f
             where lower(f.description) = lower(p_description)
               and f.status <> 'deprecated'
               and not (f.scope = p_new_scope and f.name = p_new_name)
               and am_in_scopes(f.scope, p_all, p_scopes)
             limit 100) c
     order by c.similarity desc, c.id
     limit p_limit;
  if found or v_text = '' then
    return;
  end if;
  perform set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  return query
    with alike as materialized (
      select f.id, f.scope, f.name, f.status = 'deprecated' as withdrawn, similarity(f.duplicate_text, v_text) as similarity
        from facts f
       where v_text <% f.duplicate_text
         and similarity(f.duplicate_text, v_text) >= p_threshold
       limit 100
    )
    select a.id, a.similarity
      from alike a
     where not (a.scope = p_new_scope and a.name = p_new_name)
       and am_in_scopes(a.scope, p_all, p_scopes)
     order by a.withdrawn, a.similarity desc, a.id
     limit p_limit;
end $$;
