-- Functions a database made before the baseline still holds and nothing calls:
-- am_search_nodes (search_nodes' statements run from src/graph/search.ts) with
-- its earlier signatures, am_graph_match, and the ledger's earlier append and
-- lock functions (every append, imports too, goes through am_ledger_append).
-- Every function the service uses is in sql/functions/; a fresh database never
-- had these.
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, boolean);
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, bigint, integer, boolean);
drop function if exists am_search_nodes(text, text, integer, integer, integer, integer, integer, bigint, integer, bigint, boolean);
drop function if exists am_graph_match(text, text);
drop function if exists am_ledger_lock_for_agent(text, text, bigint, text);
drop function if exists am_ledger_lock_head(text, text);
drop function if exists am_ledger_append_many(text[], text[], text[], bigint[], text[], text[], text[], text[], integer[], text[], bigint[], text[], integer[]);
