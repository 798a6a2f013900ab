// The steps of search_nodes' walk (am_graph_walk), which the walk tests build
// their graphs around; search-count.test.ts checks them against the database.
export const WALK_CHUNK = 100;
export const WALK_OBSERVATION_CHUNK = 200;
