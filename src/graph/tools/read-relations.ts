import * as z from "zod/v4";
import { MAX_CURSOR_CHARS } from "../../limits.js";
import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { relationPageText } from "../format.js";
import { readRelations } from "../relations.js";
import { pagingFields, relationPageOutput, scopeField } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = {
  names: z
    .array(z.string())
    .optional()
    .describe("Only relations touching these entity names (exact); omit for all."),
  unattached: z
    .boolean()
    .optional()
    .describe("Also (without names: only) relations with no existing endpoint."),
  scope: scopeField,
  limit: pagingFields.limit.describe("Most relations per answer (default 1000); fewer if too big."),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Relations to skip: nextOffset, or nextRelations.offset."),
  cursor: z
    .string()
    .max(MAX_CURSOR_CHARS)
    .optional()
    .describe("nextCursor (or nextRelations.cursor), same other arguments, no offset."),
};
const output = relationPageOutput;

export const readRelationsTool = defineTool({
  name: "read_relations",
  memoryOperation: "search_memory",
  title: "Read Relations",
  description:
    "Page through the graph's relations in creation order, with who created each and when: all, or those touching given names. " +
    "After relationsTruncated, pass nextRelations as the arguments. When truncated, call again with cursor = nextCursor (or offset = nextOffset).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  readsMayLag: true,
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const page = await readRelations(deps.db, readableGraph(caller, input.scope), input, graphAnswerMaxChars, { countCap: graphSearchCountMax, scanMax: graphSearchScanMax });
    return { text: relationPageText(page), structured: { ...page } };
  },
});
