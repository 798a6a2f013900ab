-- open_nodes: the entities of scope p_scope named in p_names that exist, in
-- insertion order (as the reference), each with who wrote what when, within
-- p_entity_budget characters, and the relations touching them within
-- p_relation_budget (am_graph_entities, am_graph_relations_touching). The names'
-- keys are looked up through graph_entities_scope_name.
-- Answers {"entities", "relations", "totalRelations", "relationsCountCap"}.
create or replace function am_graph_open(p_scope text, p_names text[], p_entity_budget integer, p_relation_budget integer, p_count_cap integer)
  returns json
  language plpgsql stable
  set search_path from current
  set plan_cache_mode = force_generic_plan
  as $$
declare
  v_page json;
  v_relations json;
begin
  v_page := am_graph_entities(p_scope,
    array(select e.id from graph_entities e where e.scope = p_scope and am_graph_key(e.name) = any(am_graph_keys(p_names)) order by e.id),
    p_entity_budget, true, true);
  v_relations := am_graph_relations_touching(p_scope, array(select json_array_elements_text(v_page->'names')), p_relation_budget, p_count_cap, true);
  return json_build_object('entities', v_page->'entities', 'relations', v_relations->'relations',
    'totalRelations', v_relations->'total', 'relationsCountCap', v_relations->'countCap');
end $$;
