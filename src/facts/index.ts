// The facts capability: tools and resources, registered on each MCP server.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AppDeps } from "../app-deps.js";
import { registerFactResources } from "./resources.js";
import { registerGetTool } from "./tools/get.js";
import { registerListTool } from "./tools/list.js";
import { registerPromoteTool } from "./tools/promote.js";
import { registerRecallTool } from "./tools/recall.js";
import { registerStoreTool } from "./tools/store.js";

export function registerFactsTools(server: McpServer, deps: AppDeps): void {
  registerRecallTool(server, deps);
  registerStoreTool(server, deps);
  registerGetTool(server, deps);
  registerListTool(server, deps);
  registerPromoteTool(server, deps);
  registerFactResources(server, deps);
}
