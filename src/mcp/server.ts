// Builds the MCP server for one request. Each capability registers its own tools;
// this file only wires them.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AppDeps } from "../app-deps.js";
import { registerGraphTools } from "../graph/index.js";
import { registerWhoamiTool } from "../whoami/tool.js";
import { SERVER_INSTRUCTIONS } from "./instructions.js";
import { SERVICE_VERSION } from "../version.js";

export function createMcpServer(deps: AppDeps): McpServer {
  const server = new McpServer(
    { name: "agent-memory", version: SERVICE_VERSION },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {} } },
  );
  registerWhoamiTool(server, deps);
  registerGraphTools(server, deps);
  return server;
}
