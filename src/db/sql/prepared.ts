// Statements on the request path run as named prepared statements
// (QueryOptions.prepareAs): sent unnamed, each was parsed and planned on every
// call, and planning cost more than running (a fact's get, a graph page, the
// token check). Postgres keeps the generic plan only where it is not dearer
// than a custom one, so statements with optional filters keep custom plans and
// lose only the parse. Every name is `am_<capability>_<statement>`, one name
// per text: a name given to two texts would run the wrong statement.
import type { QueryOptions } from "../core/database.js";

/** The `prepared(statement)` of one capability: `preparedIn("facts")("get")` is am_facts_get. */
export const preparedIn =
  (capability: string) =>
  (statement: string): QueryOptions => ({ prepareAs: `am_${capability}_${statement}` });
