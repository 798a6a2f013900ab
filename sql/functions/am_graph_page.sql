-- read_graph's page of entities: the scope's entities in insertion order,
-- p_offset skipped, at most p_limit, cut at p_budget characters
-- (am_graph_entities). A page holds at most as many entities as could fit in
-- the budget (each costs at least its frame; the first is always shown):
-- reading more would only size entities the answer then leaves out.
-- The scope is a closed range, ordered by (scope, id), so that only the
-- scope_id index gives the order and the page reads its own rows: with
-- "scope = …" ordered by id the planner takes the scope for a constant, sees id
-- order in the primary key too, and where the table has not been vacuumed
-- since its last rows it walked the primary key from the table's first row,
-- filtering out every other scope's entities (read_graph's first page took
-- twice as long at 10,000 entities as at 1,000; test/graph/reads-flat.test.ts).
-- Answers {"entities": [...]}.
create or replace function am_graph_page(p_scope text, p_limit integer, p_offset integer, p_budget integer)
  returns json
  language plpgsql stable
  set search_path from current
  set plan_cache_mode = force_generic_plan
  as $$
begin
  return json_build_object('entities', am_graph_entities(p_scope,
    array(select e.id from graph_entities e where e.scope >= p_scope and e.scope <= p_scope order by e.scope, e.id
          limit least(p_limit, p_budget / am_graph_frame('entity') + 1) offset p_offset),
    p_budget, false, false)->'entities');
end $$;
