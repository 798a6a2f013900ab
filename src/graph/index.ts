// The knowledge graph: the nine tools of @modelcontextprotocol/server-memory,
// same names, inputs and answers, on Postgres; plus two reads that continue a
// cut answer.
import type { Capability } from "../mcp/tool.js";
import { addObservationsTool } from "./tools/add-observations.js";
import { createEntitiesTool } from "./tools/create-entities.js";
import { createRelationsTool } from "./tools/create-relations.js";
import { deleteEntitiesTool } from "./tools/delete-entities.js";
import { deleteObservationsTool } from "./tools/delete-observations.js";
import { deleteRelationsTool } from "./tools/delete-relations.js";
import { openNodesTool } from "./tools/open-nodes.js";
import { readGraphTool } from "./tools/read-graph.js";
import { readObservationsTool } from "./tools/read-observations.js";
import { readRelationsTool } from "./tools/read-relations.js";
import { searchNodesTool } from "./tools/search-nodes.js";

export const graph: Capability = {
  name: "graph",
  tools: [
    createEntitiesTool,
    createRelationsTool,
    addObservationsTool,
    deleteEntitiesTool,
    deleteObservationsTool,
    deleteRelationsTool,
    readGraphTool,
    searchNodesTool,
    openNodesTool,
    // Ours: the rest of an answer that was cut to keep it bounded.
    readRelationsTool,
    readObservationsTool,
  ],
};

// What a snapshot (export/import of a whole tree) needs of the graph: each scope's graph in and out.
export { exportGraphIn, graphScopes, importGraph, type ImportReport as GraphImportReport } from "./transfer.js";

// What the console, the CLI and the composition root call.
export { readableGraph } from "./access.js";
export { GRAPH_ACTIVITY_SOURCES, type GraphActivitySource, recentGraphWrites } from "./activity.js";
export { openNodes, readGraph, readObservations } from "./read.js";
export { redactGraph } from "./redaction.js";
export { readRelations } from "./relations.js";
export { searchNodes } from "./search.js";
export { exportGraph, type ImportReport } from "./transfer.js";
export { type GraphEntity, type GraphRelation, type ObservationPage } from "./types.js";
export { resolveScope } from "./validate.js";
