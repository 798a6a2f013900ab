-- The duplicate warning lists live facts before withdrawn ones (console
-- review of the new-user trial). The trigram lookup ordered its (at most
-- three) answers by similarity alone, so deprecated near-copies of a rule
-- could fill the list and push out the live fact an agent should update
-- instead, which is what the warning is for. Withdrawn look-alikes still
-- show after the live ones (a new fact like a withdrawn one may be the same
-- mistake again). Only the final order changes: the lookup reads the same
-- rows, at most 100.
create or replace function am_similar_facts(
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
      select f.id, f.scope, f.name, f.status = 'deprecated' as withdrawn, similarity(f.name || ' ' || f.description, p_text) as similarity
        from facts f
       where p_text <% (f.name || ' ' || f.description)
         and similarity(f.name || ' ' || f.description, p_text) >= p_threshold
       limit 100
    )
    select a.id, a.similarity
      from alike a
     where not (a.scope = p_new_scope and a.name = p_new_name)
       and (p_all or a.scope = any(p_scopes))
     order by a.withdrawn, a.similarity desc, a.id
     limit p_limit;
end $$;
