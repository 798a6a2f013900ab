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
  limit: pagingFields.limit.describe("At most this many observations in the answer (default 1000, at most 5000); fewer when their text would make the answer too big."),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Skip this many observations first (default 0): the number a cut answer showed, or nextOffset."),
};
const output = observationPageOutput;

export const readObservationsTool = defineTool({
  name: "read_observations",
  title: "Read Observations",
  description:
    "Page through one entity's observations in the order they were added, with who added each and when. Call it when " +
    "read_graph, search_nodes or open_nodes mark an entity observationsTruncated: pass its name and offset = the number of " +
    "observations shown. When this answer says truncated, call again with offset = nextOffset.",
  input,
  output,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const { graphAnswerMaxChars, graphSearchCountMax } = deps.config.limits;
    const page = await readObservations(deps.db, readableGraph(caller, input.scope), input.name, input, graphAnswerMaxChars, { countCap: graphSearchCountMax });
    return { text: observationPageText(page), structured: { ...page } };
  },
});
