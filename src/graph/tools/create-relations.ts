import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { graphWriter } from "../access.js";
import { json } from "../format.js";
import { RelationSchema, scopeField } from "../schemas.js";
import { noteGraphGrowth } from "../statistics.js";
import { createRelations } from "../store.js";

// Built once: the SDK wraps these shapes for every request's server.
const input = { relations: z.array(RelationSchema), scope: scopeField };
const output = { relations: z.array(RelationSchema) };

export const createRelationsTool = defineTool({
  name: "create_relations",
  memoryOperation: "create_memory",
  title: "Create Relations",
  description:
    "Create multiple new relations between entities in the knowledge graph, in active voice (from \"Alice\", relationType \"works_at\", to \"Acme\"). " +
    "Existing relations are skipped; the answer lists those created. As in the reference server, an endpoint need not exist yet: create the entities too.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    const writer = graphWriter(deps, caller, input.scope);
    const created = await createRelations(deps.db, writer, input.relations);
    noteGraphGrowth(deps.db, deps.logger, writer.scope, created.length);
    return { text: json(created), structured: { relations: created } };
  },
});
