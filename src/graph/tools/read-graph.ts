import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { pageText } from "../format.js";
import { readGraph } from "../read.js";
import { pagedGraphOutput, pagingFields, scopeField } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { scope: scopeField, ...pagingFields };
const output = pagedGraphOutput;

export const readGraphTool = defineTool({
  name: "read_graph",
  title: "Read Graph",
  description:
    "Read the entire knowledge graph: entities with their observations, and relations. For something specific prefer search_nodes or open_nodes. " +
    "Pages: when truncated, call again with offset = nextOffset; cut relations continue with read_relations (nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const page = await readGraph(deps.db, readableGraph(caller, input.scope), input, graphAnswerMaxChars, { countCap: graphSearchCountMax, scanMax: graphSearchScanMax });
    return { text: pageText("read_graph", page), structured: { ...page } };
  },
});
