import * as z from "zod/v4";
import { MAX_CURSOR_CHARS } from "../../limits.js";
import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { pageText } from "../format.js";
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
    .describe("Where the next page starts: nextCursor from the previous answer, unchanged, with the same query (instead of offset)."),
};
const output = searchPageOutput;

export const searchNodesTool = defineTool({
  name: "search_nodes",
  title: "Search Nodes",
  description:
    "Search for nodes in the knowledge graph based on a query. Matches entity names, types and observation contents as a " +
    "case-insensitive substring, in any language; returns the matching entities and every relation with at least one endpoint " +
    "among them. An empty query matches everything. Call it before creating entities, to reuse existing names. Many matches " +
    "come in pages (see limit; when truncated, call again with the same arguments and cursor = nextCursor instead of offset); totalEntities counts them exactly up to a cap, " +
    "past which it is the cap with totalEntitiesIsLowerBound: true (\"at least\"). Over a large graph a query may answer " +
    "a short page (scanCut: true) after testing its share of entities; its nextCursor goes on from there. Relations beyond an answer's size limit come from read_relations (see nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const page = await searchNodes(deps.db, readableGraph(caller, input.scope), input.query, input, graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax);
    return { text: pageText("search_nodes", page), structured: { ...page } };
  },
});
