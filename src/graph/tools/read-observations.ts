import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { readableGraph } from "../access.js";
import { observationPageText } from "../format.js";
import { readObservations } from "../read.js";
import { observationPageOutput, pagingFields, scopeField } from "../schemas.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = {
  name: z.string().describe("The entity's exact name."),
  scope: scopeField,
  limit: pagingFields.limit.describe("Most observations per answer (default 1000); fewer if too big."),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Observations to skip: the number shown, or nextOffset."),
};
const output = observationPageOutput;

export const readObservationsTool = defineTool({
  name: "read_observations",
  memoryOperation: "search_memory",
  title: "Read Observations",
  description:
    "Page through one entity's observations in the order added, with who added each and when: for an entity marked observationsTruncated, " +
    "pass its name and offset = the number shown; then offset = nextOffset.",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  readsMayLag: true,
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax } = deps.config.limits;
    const page = await readObservations(deps.db, readableGraph(caller, input.scope), input.name, input, graphAnswerMaxChars, { countCap: graphSearchCountMax });
    return { text: observationPageText(page), structured: { ...page } };
  },
});
