-- One step of search_nodes' walk (am_graph_search): the entities it tests, and
-- at most twice as many observations, so that a step through entities of two
-- observations each (the usual graph) still tests that many entities, and one
-- step no more observations than that whatever one entity holds. Small enough
-- that a statement's estimated cost stays below Postgres' jit_above_cost (JIT
-- compilation of a plan that merely looks expensive cost ~13 ms a call), large
-- enough that a walk to 10,000 matches takes ~100 steps (~7 ms on Postgres).
create or replace function am_graph_walk(p_what text) returns integer
  language sql immutable strict parallel safe
  as $$ select case p_what when 'entities' then 100 when 'observations' then 200 end $$;
