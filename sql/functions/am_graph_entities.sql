-- The entities p_ids of scope p_scope as a graph answer shows them, in id
-- order, within p_budget characters (am_graph_frame): entity, its observations,
-- next entity. A paged read (p_keep_all false) ends before the first entity
-- that does not fit whole, except the page's first, which is always shown;
-- open_nodes (p_keep_all true) shows every entity. An entity shows its
-- observations in insertion order while the budget lasts, and the one that
-- crosses it, so every answer makes progress; totalObservations says how many
-- it has (kept as rows are written, graph_entities.observation_count). Each
-- entity's observations are read as a range of (entity_id, id) ordered by that
-- whole key, at most as many as the budget could show: with "entity_id = …"
-- ordered by id, where one entity holds most of the table the planner walked
-- the primary key and filtered every other entity's rows out (200,000 rows
-- read to show an entity with none). p_provenance adds who wrote each entity
-- and observation, and when.
-- Answers {"entities": [...], "names": [...], "lastId": n}: the names shown, in
-- order (am_graph_relations_touching takes them), and the last id shown.
create or replace function am_graph_entities(p_scope text, p_ids bigint[], p_budget integer, p_keep_all boolean, p_provenance boolean)
  returns json
  language plpgsql stable
  set search_path from current
  set plan_cache_mode = force_generic_plan
  as $$
begin
  return (
    with page as materialized (
      select e.id, e.name, e.entity_type, e.created_at, e.observation_count, a.name as created_by
      from graph_entities e join agents a on a.id = e.created_by
      where e.id = any(p_ids) and e.scope = p_scope
    ), sized as (
      select p.*, char_length(p.name) + char_length(p.entity_type) + am_graph_frame('entity') as head, coalesce(c.cost, 0) as body
      from page p cross join lateral (select sum(o.cost) as cost from (
        select char_length(o.content) + am_graph_frame('observation') as cost
        from graph_observations o where (o.entity_id, o.id) > (p.id, 0::bigint) and (o.entity_id, o.id) < (p.id, 9223372036854775807::bigint)
        order by o.entity_id, o.id limit p_budget / am_graph_frame('observation') + 1) o) c
    ), run as (
      select s.*, row_number() over (order by s.id) as ord, sum(s.head + s.body) over (order by s.id) as upto
      from sized s
    ), kept as materialized (
      select r.*, r.upto - r.head - r.body as before
      from run r
      where p_keep_all or r.ord = 1 or r.upto <= p_budget
    )
    select json_build_object(
      'entities', coalesce((select json_agg(
          case when p_provenance then json_build_object(
            'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
            'totalObservations', k.observation_count, 'createdBy', k.created_by,
            'createdAt', to_char(k.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'observationsMeta', coalesce(g.meta, '[]'::json))
          else json_build_object(
            'name', k.name, 'entityType', k.entity_type, 'observations', coalesce(g.observations, '[]'::json),
            'totalObservations', k.observation_count) end
          order by k.id)
        from kept k left join lateral (
          select json_agg(x.content order by x.id) as observations,
            case when p_provenance then json_agg(json_build_object('createdBy', a.name,
              'createdAt', to_char(x.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) order by x.id) end as meta
          from (
            select o.*, sum(o.cost) over (order by o.id) - o.cost as at
            from (
              select o.id, o.content, o.created_by, o.created_at, char_length(o.content) + am_graph_frame('observation') as cost
              from graph_observations o where (o.entity_id, o.id) > (k.id, 0::bigint) and (o.entity_id, o.id) < (k.id, 9223372036854775807::bigint) and k.before + k.head < p_budget
              order by o.entity_id, o.id limit p_budget / am_graph_frame('observation') + 1) o
          ) x join agents a on a.id = x.created_by
          where k.before + k.head + x.at < p_budget
        ) g on true), '[]'::json),
      'names', coalesce((select json_agg(k.name order by k.id) from kept k), '[]'::json),
      'lastId', (select max(k.id) from kept k)));
end $$;
