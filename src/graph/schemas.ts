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
  .describe('Whose graph: a scope (default "shared").');

export const pagingFields = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_LIMIT)
    .optional()
    .describe(`Most entities per answer (default ${DEFAULT_PAGE_LIMIT}); fewer if too big.`),
  offset: z.number().int().min(0).max(2_147_483_647).optional().describe("Entities to skip: nextOffset of a truncated answer."),
};

const provenanceFields = {
  createdBy: z.string().optional().describe("The agent that created it."),
  createdAt: z.string().optional().describe("When it was created (ISO 8601)."),
};

const ObservationMetaSchema = z.object({ createdBy: z.string(), createdAt: z.string() });

const EntityOutSchema = EntitySchema.extend({
  ...provenanceFields,
  observationsMeta: z.array(ObservationMetaSchema).optional().describe("Who added each observation and when, in the same order as observations."),
  observationsTruncated: z
    .boolean()
    .optional()
    .describe("Only when the answer holds just the first observations, to stay small: read_observations with offset = the number shown returns the rest."),
  totalObservations: z.number().int().optional().describe("Only with observationsTruncated: how many observations the entity has."),
});

const RelationOutSchema = RelationSchema.extend(provenanceFields);

const nextRelationsSchema = z
  .object({
    scope: z.string(),
    names: z.array(z.string()).optional(),
    unattached: z.boolean().optional(),
    offset: z.number().int().optional(),
    cursor: z.string().optional(),
  })
  .describe("Only with relationsTruncated: call read_relations with exactly these arguments for the rest.");

export const graphOutput = {
  entities: z.array(EntityOutSchema),
  relations: z.array(RelationOutSchema),
  relationsTruncated: z.boolean().optional().describe("Only when the relations were cut to keep the answer small (see nextRelations)."),
  totalRelations: z.number().int().optional().describe("Only with relationsTruncated: how many relations the answer would list uncut."),
  totalRelationsIsLowerBound: z
    .boolean()
    .optional()
    .describe("Only when counting the relations stopped at its bound (GRAPH_SEARCH_COUNT_MAX, GRAPH_SEARCH_SCAN_MAX): at least totalRelations."),
  nextRelations: nextRelationsSchema.optional(),
  otherScopes: z
    .array(z.object({ scope: z.string(), matches: z.number().int(), matchesIsLowerBound: z.literal(true).optional() }))
    .optional()
    .describe("Only when the scope asked had nothing: other scopes you may read that do, with how many entities; pass one as scope."),
};

export const relationPageOutput = {
  relations: z.array(RelationOutSchema),
  totalRelations: z.number().int().describe("Relations matching the arguments, in all; with totalRelationsIsLowerBound, at least this many."),
  totalRelationsIsLowerBound: z
    .boolean()
    .optional()
    .describe("Only when counting stopped at its cap (GRAPH_SEARCH_COUNT_MAX) or the walk at its bound (GRAPH_SEARCH_SCAN_MAX): more may match."),
  offset: z.number().int(),
  limit: z.number().int(),
  truncated: z.boolean().describe("True when more relations follow this answer."),
  nextOffset: z.number().int().optional().describe("Pass as offset to get the next page (when truncated and the page was asked for by offset; nextCursor always works)."),
  nextCursor: z.string().optional().describe("Pass as cursor, with the same arguments, to get the next page (only when truncated)."),
  scanCut: z
    .boolean()
    .optional()
    .describe("Only when the walk tested its share of the scope's relations (GRAPH_SEARCH_SCAN_MAX) before its page was full: more may match; nextCursor goes on from there."),
};

export const observationPageOutput = {
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()),
  observationsMeta: z.array(ObservationMetaSchema).describe("Who added each observation and when, in the same order as observations."),
  totalObservations: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
  truncated: z.boolean().describe("True when more observations follow this answer."),
  nextOffset: z.number().int().optional().describe("Pass as offset to get the next page (only when truncated)."),
};

export const pagedGraphOutput = {
  ...graphOutput,
  totalEntities: z
    .number()
    .int()
    .optional()
    .describe("Entities in the scope (read_graph, always exact) or matching the query (search_nodes; with totalEntitiesIsLowerBound, at least this many)."),
  totalEntitiesIsLowerBound: z
    .boolean()
    .optional()
    .describe("search_nodes, only when counting stopped at its cap (GRAPH_SEARCH_COUNT_MAX): at least totalEntities entities match."),
  offset: z.number().int().optional(),
  limit: z.number().int().optional(),
  truncated: z.boolean().optional().describe("True when more entities exist beyond this answer."),
  nextOffset: z.number().int().optional().describe("Pass as offset to get the next page (only when truncated)."),
};

/** search_nodes: a page of pagedGraphOutput, with its cursor. */
export const searchPageOutput = {
  ...pagedGraphOutput,
  nextOffset: z
    .number()
    .int()
    .optional()
    .describe("Pass as offset to get the next page (when truncated and the page was asked for by offset; nextCursor always works)."),
  nextCursor: z.string().optional().describe("Pass as cursor, with the same query, to get the next page (only when truncated)."),
  scanCut: z
    .boolean()
    .optional()
    .describe("Only when the search tested its share of entities and observations one by one (GRAPH_SEARCH_SCAN_MAX) before its page was full: more may match; nextCursor goes on from there."),
};

export const deleteOutput = {
  success: z.boolean(),
  message: z.string(),
  deleted: z
    .object({ entities: z.number().int(), relations: z.number().int(), observations: z.number().int() })
    .optional()
    .describe("How many rows this call removed."),
};
