// The graph's statements run prepared under am_graph_* names (src/db/sql/prepared.ts):
// each is a few kilobytes of SQL whose planning took longer than running it.
import { preparedIn } from "../db/sql/prepared.js";

export const prepared = preparedIn("graph");
