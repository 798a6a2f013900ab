import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { json } from "../format.js";
import { EntitySchema, scopeField } from "../schemas.js";
import { noteGraphGrowth } from "../statistics.js";
import { createEntities } from "../store.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { entities: z.array(EntitySchema), scope: scopeField };
const output = { entities: z.array(EntitySchema) };

export const createEntitiesTool = defineTool({
  name: "create_entities",
  memoryOperation: "create_memory",
  title: "Create Entities",
  description:
    "Create multiple new entities in the knowledge graph: a person, organisation, project, tool or concept worth remembering " +
    "(search_nodes first, to reuse a name). Observations are short atomic facts. Existing names are skipped (extend them with add_observations); " +
    "the answer lists the entities created.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    const writer = graphWriter(deps, caller, input.scope);
    const created = await createEntities(deps.db, writer, input.entities);
    noteGraphGrowth(deps.db, deps.logger, writer.scope, created.reduce((rows, e) => rows + 1 + e.observations.length, 0));
    return { text: json(created), structured: { entities: created } };
  },
});
