// The tools' zod shapes. Field names, nesting and descriptions follow the
// reference server; extra fields are optional, so its callers work unchanged.
import * as z from "zod/v4";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "./validate.js";

export const EntitySchema = z.object({
  name: z.string().describe("The name of the entity"),
  entityType: z.string().describe("The type of the entity"),
  observations: z.array(z.string()).describe("An array of observation contents associated with the entity"),
});

export const RelationSchema = z.object({
  from: z.string().describe("The name of the entity where the relation starts"),
  to: z.string().describe("The name of the entity where the relation ends"),
  relationType: z.string().describe("The type of the relation"),
});

export const scopeField = z
  .string()
  .optional()
  .describe('The graph to use (default "shared"). Each scope holds its own graph; reading needs read access to it, changing it needs write access.');

export const pagingFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .optional()
    .describe(`At most this many entities in the answer (default ${DEFAULT_PAGE_LIMIT}, at most ${MAX_PAGE_LIMIT}).`),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Skip this many entities first (default 0): pass nextOffset from a truncated answer to get the next page."),
};

const provenanceFields = {
  createdBy: z.string().optional().describe("The agent that created it."),
  createdAt: z.string().optional().describe("When it was created (ISO 8601)."),
};

export const EntityOutSchema = EntitySchema.extend({
  ...provenanceFields,
  observationsMeta: z
    .array(z.object({ createdBy: z.string(), createdAt: z.string() }))
    .optional()
    .describe("Who added each observation and when, in the same order as observations."),
});

export const RelationOutSchema = RelationSchema.extend(provenanceFields);

export const graphOutput = {
  entities: z.array(EntityOutSchema),
  relations: z.array(RelationOutSchema),
};

export const pagedGraphOutput = {
  ...graphOutput,
  totalEntities: z.number().int().optional().describe("Entities in the scope (read_graph) or matching the query (search_nodes)."),
  offset: z.number().int().optional(),
  limit: z.number().int().optional(),
  truncated: z.boolean().optional().describe("True when more entities exist beyond this answer."),
  nextOffset: z.number().int().optional().describe("Pass as offset to get the next page (only when truncated)."),
};

export const deleteOutput = {
  success: z.boolean(),
  message: z.string(),
  deleted: z
    .object({ entities: z.number().int(), relations: z.number().int(), observations: z.number().int() })
    .optional()
    .describe("How many rows this call removed."),
};
