// Builds the MCP server for each request. Each capability registers its own
// tools in registerCapabilities; this file only wires them.
//
// Stateless HTTP needs a fresh McpServer per request (the SDK forbids reusing a
// server or transport across requests). Two things made that expensive and are
// done once here instead: the JSON-schema validator (an Ajv instance, ~200 µs to
// build) is shared, and the tool definitions (zod schemas, ~25 µs per tool to
// build) are recorded once and replayed into each new server.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { AppDeps } from "../app-deps.js";
import { registerFactsTools } from "../facts/index.js";
import { registerGraphTools } from "../graph/index.js";
import { registerLedgerTools } from "../ledger/index.js";
import { registerPrompts } from "../prompts/index.js";
import { SERVICE_VERSION } from "../version.js";
import { registerWhoamiTool } from "../whoami/tool.js";
import { SERVER_INSTRUCTIONS } from "./instructions.js";

export function registerCapabilities(server: McpServer, deps: AppDeps): void {
  registerWhoamiTool(server, deps);
  registerFactsTools(server, deps);
  registerLedgerTools(server, deps);
  registerGraphTools(server, deps);
  registerPrompts(server);
}

// registerTool is generic and registerResource overloaded; their arguments are
// replayed exactly as the capability passed them.
type Registration = unknown[];
const replay = (fn: unknown, server: McpServer, args: Registration) => (fn as (...a: unknown[]) => unknown).apply(server, args);

/** Records what capabilities register, to replay it into each request's server. */
function recordRegistrations(deps: AppDeps) {
  const tools: Registration[] = [];
  const resources: Registration[] = [];
  const prompts: Registration[] = [];
  const recorder = {
    registerTool: (...args: Registration) => void tools.push(args),
    registerResource: (...args: Registration) => void resources.push(args),
    registerPrompt: (...args: Registration) => void prompts.push(args),
  };
  registerCapabilities(recorder as unknown as McpServer, deps);
  return { tools, resources, prompts };
}

export type McpServerFactory = () => McpServer;

export function createMcpServerFactory(deps: AppDeps): McpServerFactory {
  const { tools, resources, prompts } = recordRegistrations(deps);
  // Only used to validate elicitation answers; stateless and safe to share.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return () => {
    const server = new McpServer(
      { name: "agent-memory", version: SERVICE_VERSION },
      {
        instructions: SERVER_INSTRUCTIONS,
        capabilities: {
          tools: {},
          ...(resources.length > 0 ? { resources: {} } : {}),
          ...(prompts.length > 0 ? { prompts: {} } : {}),
        },
        jsonSchemaValidator,
      },
    );
    for (const args of tools) replay(server.registerTool, server, args);
    for (const args of resources) replay(server.registerResource, server, args);
    for (const args of prompts) replay(server.registerPrompt, server, args);
    return server;
  };
}
