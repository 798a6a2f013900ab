-- read_graph's page of entities: the scope's entities in insertion order,
-- p_offset skipped, at most p_limit, cut at p_budget characters
-- (am_graph_entities). A page holds at most as many entities as could fit in
-- the budget (each costs at least its frame; the first is always shown):
-- reading more would only size entities the answer then leaves out.
-- Answers {"entities": [...]}.
create or replace function am_graph_page(p_scope text, p_limit integer, p_offset integer, p_budget integer)
  returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  as $$
begin
  return json_build_object('entities', am_graph_entities(p_scope,
    array(select e.id from graph_entities e where e.scope = p_scope order by e.id
          limit least(p_limit, p_budget / am_graph_frame('entity') + 1) offset p_offset),
    p_budget, false, false)->'entities');
end $$;
