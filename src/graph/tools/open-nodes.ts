import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { graphText } from "../format.js";
import { namesElsewhere, elsewhereText } from "../other-scopes.js";
import { openNodes } from "../read.js";
import { graphOutput, scopeField } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { names: z.array(z.string()).describe("An array of entity names to retrieve"), scope: scopeField };
const output = graphOutput;

export const openNodesTool = defineTool({
  name: "open_nodes",
  memoryOperation: "search_memory",
  title: "Open Nodes",
  description:
    "Open specific nodes in the knowledge graph by their names: the entities that exist, with who created what and when, and every relation touching them. " +
    "A cut answer continues with read_observations (observationsTruncated) and read_relations (nextRelations).",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  readsMayLag: true,
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax } = deps.config.limits;
    const scope = readableGraph(caller, input.scope);
    const graph = await openNodes(deps.db, scope, input.names, graphAnswerMaxChars, { countCap: graphSearchCountMax });
    const others = graph.entities.length === 0 && input.names.length > 0 ? await namesElsewhere(deps.db, caller, scope, input.names) : [];
    if (others.length > 0) return { text: elsewhereText("open_nodes", scope, others), structured: { ...graph, otherScopes: others } };
    return { text: graphText(graph), structured: { ...graph } };
  },
});
