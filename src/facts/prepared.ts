// Facts' statements on the request path run as named prepared statements
// (QueryOptions.prepareAs): sent unnamed, each was parsed and planned on every
// call, and planning cost more than running. GET_FACT at 100,000 facts: 1.98 ms
// unnamed, 0.46 ms prepared.
// Postgres keeps the generic plan only where it is not dearer than a custom
// one, so the statements with optional filters (LIST_FACTS) keep custom plans
// and lose only the parse. One name, one text: the names say which constant.
import type { QueryOptions } from "../db/database.js";

export const prepared = (statement: string): QueryOptions => ({ prepareAs: `am_facts_${statement}` });
