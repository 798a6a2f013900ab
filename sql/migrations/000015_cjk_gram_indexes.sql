-- One- and two-character Chinese, Japanese and Korean keywords (注文, 배포, 猫)
-- hold no trigram: the trigram indexes could not narrow their substring search,
-- and every fact (entity, observation) the caller may read was checked. These
-- indexes hold each text's one- and two-character pieces of those scripts
-- (am_cjk_grams), leading with the scope like the trigram indexes, over the same
-- texts: recall's search text (am_fact_search_text) and search_nodes' name, type
-- and observation text.
create index facts_cjk_grams on facts using gin (scope, am_cjk_grams(am_fact_search_text(name, description, body))) with (gin_pending_list_limit = '64');
create index graph_entities_scope_name_cjk_grams on graph_entities using gin (scope, am_cjk_grams(name)) with (gin_pending_list_limit = '256');
create index graph_entities_scope_type_cjk_grams on graph_entities using gin (scope, am_cjk_grams(entity_type)) with (gin_pending_list_limit = '256');
create index graph_observations_scope_content_cjk_grams on graph_observations using gin (scope, am_cjk_grams(content)) with (gin_pending_list_limit = '256');
