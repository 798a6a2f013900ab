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
    .describe("Only relations with at least one endpoint among these entity names (exact). Omit for every relation of the graph."),
  unattached: z
    .boolean()
    .optional()
    .describe("Also (without names: only) the relations neither of whose endpoints is an existing entity."),
  scope: scopeField,
  limit: pagingFields.limit.describe("At most this many relations in the answer (default 1000, at most 5000); fewer when their text would make the answer too big."),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Skip this many relations first (default 0): pass nextOffset, or the offset in a cut answer's nextRelations."),
  cursor: z
    .string()
    .max(MAX_CURSOR_CHARS)
    .optional()
    .describe("Start after this point: pass nextCursor of the previous answer (or the cursor in nextRelations), with the same other arguments and no offset."),
};
const output = relationPageOutput;

export const readRelationsTool = defineTool({
  name: "read_relations",
  title: "Read Relations",
  description:
    "Page through relations of the knowledge graph in creation order, with who created each and when: all of them, or those " +
    "touching given entity names. Call it when read_graph, search_nodes or open_nodes say relationsTruncated: pass their " +
    "nextRelations as the arguments. When this answer says truncated, call again with offset = nextOffset, or cursor = nextCursor " +
    "when there is no nextOffset (finding unattached relations tests a bounded share of the graph per call: scanCut).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const page = await readRelations(deps.db, readableGraph(caller, input.scope), input, graphAnswerMaxChars, { countCap: graphSearchCountMax, scanMax: graphSearchScanMax });
    return { text: relationPageText(page), structured: { ...page } };
  },
});
