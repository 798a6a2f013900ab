// The knowledge graph: the nine tools of @modelcontextprotocol/server-memory,
// same names, inputs and answers, on Postgres; plus two reads that continue a
// cut answer.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AppDeps } from "../app-deps.js";
import { registerAddObservationsTool } from "./tools/add-observations.js";
import { registerCreateEntitiesTool } from "./tools/create-entities.js";
import { registerCreateRelationsTool } from "./tools/create-relations.js";
import { registerDeleteEntitiesTool } from "./tools/delete-entities.js";
import { registerDeleteObservationsTool } from "./tools/delete-observations.js";
import { registerDeleteRelationsTool } from "./tools/delete-relations.js";
import { registerOpenNodesTool } from "./tools/open-nodes.js";
import { registerReadGraphTool } from "./tools/read-graph.js";
import { registerReadObservationsTool } from "./tools/read-observations.js";
import { registerReadRelationsTool } from "./tools/read-relations.js";
import { registerSearchNodesTool } from "./tools/search-nodes.js";

export function registerGraphTools(server: McpServer, deps: AppDeps): void {
  registerCreateEntitiesTool(server, deps);
  registerCreateRelationsTool(server, deps);
  registerAddObservationsTool(server, deps);
  registerDeleteEntitiesTool(server, deps);
  registerDeleteObservationsTool(server, deps);
  registerDeleteRelationsTool(server, deps);
  registerReadGraphTool(server, deps);
  registerSearchNodesTool(server, deps);
  registerOpenNodesTool(server, deps);
  // Ours: the rest of an answer that was cut to keep it bounded.
  registerReadRelationsTool(server, deps);
  registerReadObservationsTool(server, deps);
}
