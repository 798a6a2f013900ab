-- search_nodes at 1,000 entities was slower than at 10,000 (issue 16). Inside
-- am_graph_match each branch may use its trigram index with the scope alone
-- (a GIN index serves a condition on its first column) and test ILIKE on every
-- row of the scope: at 1,000 entities the planner, which prices ILIKE as one
-- cheap operator, found reading the scope's 1,000 rows that way cheaper than
-- the trigram lookup, and each search tested ILIKE on every name and type
-- (0.4-1.8 ms instead of 0.05-0.1 ms). Pricing every operator in this function
-- at 20 times the default makes the trigram lookup win wherever it reads fewer
-- rows; a pattern that matches most of the scope still reads it whole.
create or replace function am_graph_match(search_scope text, pattern text) returns setof bigint
  language sql stable strict parallel safe
  rows 10
  set enable_seqscan = off
  set enable_indexscan = off
  set cpu_operator_cost = 0.05
  as $$
    select id from graph_entities where scope = $1 and name ilike $2
    union
    select id from graph_entities where scope = $1 and entity_type ilike $2
    union
    select entity_id from graph_observations where scope = $1 and content ilike $2
  $$;
