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
  title: "Create Entities",
  description:
    "Create multiple new entities in the knowledge graph. Call it when you meet a person, organisation, project, tool or concept " +
    "worth remembering across sessions (search_nodes first, to reuse an existing name). Each entity has a unique name, an entityType " +
    "and observations (short atomic facts). Names that already exist are skipped (use add_observations to extend them); " +
    "the answer lists only the entities actually created.",
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
