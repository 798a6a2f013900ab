import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { deleteOutput, scopeField } from "../schemas.js";
import { deleteObservations } from "../store.js";

const MESSAGE = "Observations deleted successfully";

// Built once: the SDK wraps these shapes for every request's server.
const input = {
  deletions: z.array(
    z.object({
      entityName: z.string().describe("The name of the entity containing the observations"),
      observations: z.array(z.string()).describe("An array of observations to delete"),
    }),
  ),
  scope: scopeField,
};
const output = deleteOutput;

export const deleteObservationsTool = defineTool({
  name: "delete_observations",
  memoryOperation: "delete_memory",
  title: "Delete Observations",
  description:
    "Delete specific observations (exact text) from entities in the knowledge graph, when wrong or outdated. Missing ones are ignored.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const deleted = await deleteObservations(deps.db, graphWriter(deps, caller, input.scope), input.deletions);
    return { text: MESSAGE, structured: { success: true, message: MESSAGE, deleted } };
  },
});
