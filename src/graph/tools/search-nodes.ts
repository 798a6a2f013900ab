import * as z from "zod/v4";
import { MAX_CURSOR_CHARS } from "../../limits.js";
import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { pageText } from "../format.js";
import { elsewhereText, searchElsewhere } from "../other-scopes.js";
import { searchNodes } from "../search.js";
import { pagingFields, scopeField, searchPageOutput } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = {
  query: z.string().describe("The search query to match against entity names, types, and observation content"),
  scope: scopeField,
  ...pagingFields,
  cursor: z
    .string()
    .max(MAX_CURSOR_CHARS)
    .optional()
    .describe("nextCursor of the previous answer, same query (instead of offset)."),
};
const output = searchPageOutput;

export const searchNodesTool = defineTool({
  name: "search_nodes",
  memoryOperation: "search_memory",
  title: "Search Nodes",
  description:
    "Search the knowledge graph for a case-insensitive substring of entity names, types or observations. " +
    "Returns the matches and every relation touching them. Call it before creating entities, to reuse names. " +
    "When truncated or scanCut, call again with cursor = nextCursor; totalEntities counts exactly up to a cap (then totalEntitiesIsLowerBound). " +
    "Cut relations continue with read_relations (nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  readsMayLag: true,
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const scope = readableGraph(caller, input.scope);
    const page = await searchNodes(deps.db, scope, input.query, input, graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax);
    // A first page with nothing (and no walk cut short, which goes on by its cursor): say where the query does match.
    const nothing = page.entities.length === 0 && page.offset === 0 && input.cursor === undefined && !page.scanCut;
    const others = nothing ? await searchElsewhere(deps.db, caller, scope, input.query, graphAnswerMaxChars) : [];
    if (others.length > 0) return { text: elsewhereText("search_nodes", scope, others), structured: { ...page, otherScopes: others } };
    return { text: pageText("search_nodes", page), structured: { ...page } };
  },
});
