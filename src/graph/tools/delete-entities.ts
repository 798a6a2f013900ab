import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { deleteOutput, scopeField } from "../schemas.js";
import { deleteEntities } from "../store.js";

const MESSAGE = "Entities deleted successfully";

// Built once: the SDK wraps these shapes for every request's server.
const input = { entityNames: z.array(z.string()).describe("An array of entity names to delete"), scope: scopeField };
const output = deleteOutput;

export const deleteEntitiesTool = defineTool({
  name: "delete_entities",
  memoryOperation: "delete_memory",
  title: "Delete Entities",
  description:
    "Delete multiple entities and their associated relations (and observations) from the knowledge graph, only when wrong or obsolete. Missing names are ignored.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const deleted = await deleteEntities(deps.db, graphWriter(deps, caller, input.scope), input.entityNames);
    return { text: MESSAGE, structured: { success: true, message: MESSAGE, deleted } };
  },
});
