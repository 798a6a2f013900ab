import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { json } from "../format.js";
import { scopeField } from "../schemas.js";
import { noteGraphGrowth } from "../statistics.js";
import { addObservations } from "../store.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = {
  observations: z.array(
    z.object({
      entityName: z.string().describe("The name of the entity to add the observations to"),
      contents: z.array(z.string()).describe("An array of observation contents to add"),
    }),
  ),
  scope: scopeField,
};
const output = { results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })) };

export const addObservationsTool = defineTool({
  name: "add_observations",
  memoryOperation: "create_memory",
  title: "Add Observations",
  description:
    "Add new observations to existing entities in the knowledge graph, when you learn a fact about a known entity. " +
    "Texts an entity already has are skipped; the answer lists those added. If a named entity does not exist, nothing is written: create_entities first.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    const writer = graphWriter(deps, caller, input.scope);
    const results = await addObservations(deps.db, writer, input.observations);
    noteGraphGrowth(deps.db, deps.logger, writer.scope, results.reduce((rows, r) => rows + r.addedObservations.length, 0));
    return { text: json(results), structured: { results } };
  },
});
