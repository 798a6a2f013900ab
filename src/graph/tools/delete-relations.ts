import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { deleteOutput, RelationSchema, scopeField } from "../schemas.js";
import { deleteRelations } from "../store.js";

const MESSAGE = "Relations deleted successfully";

// Built once: the SDK wraps these shapes for every request's server.
const input = { relations: z.array(RelationSchema).describe("An array of relations to delete"), scope: scopeField };
const output = deleteOutput;

export const deleteRelationsTool = defineTool({
  name: "delete_relations",
  memoryOperation: "delete_memory",
  title: "Delete Relations",
  description:
    "Delete multiple relations from the knowledge graph (from, to and relationType match exactly). Missing ones are ignored.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const deleted = await deleteRelations(deps.db, graphWriter(deps, caller, input.scope), input.relations);
    return { text: MESSAGE, structured: { success: true, message: MESSAGE, deleted } };
  },
});
