// The graph's statements run as named prepared statements (QueryOptions.prepareAs):
// each is a few kilobytes of SQL, and parsing and planning it took longer than
// running it at 1,000 entities (1-2.5 ms of planning against ~1 ms of
// execution for open_nodes). Postgres then keeps a plan per connection: the
// generic plan when it is not dearer than the custom ones (search_nodes), else
// a custom plan without the parse. The writes too: a batch of create_entities
// is one statement, planned on every call when sent unnamed. bench/README.md
// has the before/after. One name, one text.
import type { QueryOptions } from "../db/database.js";

export const prepared = (statement: string): QueryOptions => ({ prepareAs: `am_graph_${statement}` });
