-- Functions a database made before the baseline still holds and nothing calls:
-- am_search_nodes (search_nodes' statements run from src/graph/search.ts) with
-- its earlier signatures, and am_graph_match. (Every function the service uses
-- is in sql/functions/; a fresh database never had these.)
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, boolean);
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, bigint, integer, boolean);
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, bigint, integer, bigint, boolean);
drop function if exists am_graph_match(text, text);
