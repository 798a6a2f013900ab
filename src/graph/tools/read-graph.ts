import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { pageText } from "../format.js";
import { readGraph } from "../read.js";
import { pagedGraphOutput, pagingFields, scopeField } from "../schemas.js";
import { DEFAULT_PAGE_LIMIT } from "../validate.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { scope: scopeField, ...pagingFields };
const output = pagedGraphOutput;

export const readGraphTool = defineTool({
  name: "read_graph",
  title: "Read Graph",
  description:
    "Read the entire knowledge graph: entities with their observations, and relations. Prefer search_nodes or open_nodes when " +
    `you look for something specific. Large graphs come in pages of at most ${DEFAULT_PAGE_LIMIT} entities (see limit); ` +
    "when the answer says truncated, call again with offset = nextOffset. Relations beyond an answer's size limit come from read_relations (see nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const page = await readGraph(deps.db, readableGraph(caller, input.scope), input, graphAnswerMaxChars, { countCap: graphSearchCountMax, scanMax: graphSearchScanMax });
    return { text: pageText("read_graph", page), structured: { ...page } };
  },
});
