import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { pageText } from "../format.js";
import { graphsElsewhere, elsewhereText } from "../other-scopes.js";
import { readGraph } from "../read.js";
import { pagedGraphOutput, pagingFields, scopeField } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { scope: scopeField, ...pagingFields };
const output = pagedGraphOutput;

export const readGraphTool = defineTool({
  name: "read_graph",
  memoryOperation: "search_memory",
  title: "Read Graph",
  description:
    "Read the entire knowledge graph: entities with their observations, and relations. For something specific prefer search_nodes or open_nodes. " +
    "Pages: when truncated, call again with offset = nextOffset; cut relations continue with read_relations (nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  readsMayLag: true,
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax, graphSearchScanMax } = deps.config.limits;
    const scope = readableGraph(caller, input.scope);
    const page = await readGraph(deps.db, scope, input, graphAnswerMaxChars, { countCap: graphSearchCountMax, scanMax: graphSearchScanMax });
    const others = page.totalEntities === 0 ? await graphsElsewhere(deps.db, caller, scope) : [];
    if (others.length > 0) return { text: elsewhereText("read_graph", scope, others), structured: { ...page, otherScopes: others } };
    return { text: pageText("read_graph", page), structured: { ...page } };
  },
});
