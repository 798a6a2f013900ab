-- The duplicate warning finds a copy first (issue 15). Among hundreds of
-- look-alike facts the trigram lookup (000011) reads a candidate per look-alike
-- and stops at its time bound (FACT_DUPLICATE_TIMEOUT_MS), so the store was
-- answered without a warning exactly when an agent stored, under a new name, a
-- description the team already had word for word (100,000 templated facts:
-- 100 look-alike stores, 0 warnings; bench/README.md, fourth round).
--
-- A fact with the same description (ignoring case) is now looked up first,
-- through its own btree index: one probe, whatever the store holds. When there
-- is one (not deprecated), it is the answer (the most similar of the identical ones, by the same
-- similarity() of name and description, which may be below the threshold when
-- the names differ: the same one-line description is a duplicate by itself)
-- and the trigram lookup is skipped. Otherwise the trigram lookup runs as
-- before. Readable scopes come from the authenticated caller, as everywhere.
-- The new fact itself is left out here, by scope and name (the lookup runs
-- beside the insert, so it may see it): the unused exclusion by id is gone.
create index facts_description_lower on facts (lower(description));

drop function am_similar_facts(text, real, boolean, text[], bigint, integer);

create function am_similar_facts(
  p_text text, p_threshold real, p_all boolean, p_scopes text[], p_new_scope text, p_new_name text, p_limit integer, p_description text)
  returns table (id bigint, similarity real)
  language plpgsql
  set enable_seqscan = off
  set plan_cache_mode = force_generic_plan
  as $$
begin
  -- Not a deprecated copy: one withdrawn as "duplicate of <name>" would hide
  -- the fact that replaced it, which the trigram lookup then finds. At most
  -- 100 copies are read, as the trigram lookup reads at most 100 matches.
  return query
    select c.id, c.similarity
      from (select f.id, similarity(f.name || ' ' || f.description, p_text) as similarity
              from facts f
             where lower(f.description) = lower(p_description)
               and f.status <> 'deprecated'
               and not (f.scope = p_new_scope and f.name = p_new_name)
               and (p_all or f.scope = any(p_scopes))
             limit 100) c
     order by c.similarity desc, c.id
     limit p_limit;
  if found then
    return;
  end if;
  perform set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  -- As in 000011: only the trigram condition inside the CTE (with the scope
  -- filter beside it the planner scanned the whole (name, scope) index), and
  -- the inner LIMIT bounds the work among very many look-alikes.
  return query
    with alike as materialized (
      select f.id, f.scope, f.name, similarity(f.name || ' ' || f.description, p_text) as similarity
        from facts f
       where p_text <% (f.name || ' ' || f.description)
         and similarity(f.name || ' ' || f.description, p_text) >= p_threshold
       limit 100
    )
    select a.id, a.similarity
      from alike a
     where not (a.scope = p_new_scope and a.name = p_new_name)
       and (p_all or a.scope = any(p_scopes))
     order by a.similarity desc, a.id
     limit p_limit;
end $$;
