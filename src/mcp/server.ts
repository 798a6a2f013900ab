// Builds the MCP server for each request from the capabilities' definitions
// (src/capabilities.ts lists them; this file knows none of them by name).
//
// Stateless HTTP needs a fresh McpServer per request (the SDK forbids reusing a
// server or transport across requests). Two things made that expensive and are
// done once here instead: the JSON-schema validator (an Ajv instance, ~200 µs to
// build) is shared, and the registrations (zod schemas, ~25 µs per tool to build,
// and the wrapped callbacks) are built once per factory and replayed into each
// new server.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { AppDeps } from "../app-deps.js";
import { capabilities as allCapabilities } from "../capabilities.js";
import { SERVICE_VERSION } from "../version.js";
import { type CallExtra, promptCallback, resourceCall, toolCallback } from "./guard.js";
import { SERVER_INSTRUCTIONS } from "./instructions.js";
import type { Capability } from "./tool.js";

/** Registers every capability's tools, resources and prompts on one server. */
type Registration = (server: McpServer) => void;

/** Turns definitions into registrations once; each is replayed per request. */
export function buildRegistrations(deps: AppDeps, capabilities: readonly Capability[]): Registration[] {
  const registrations: Registration[] = [];
  for (const capability of capabilities) {
    for (const tool of capability.tools) {
      const config = {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      };
      const callback = toolCallback(deps, tool);
      registrations.push((server) => void server.registerTool(tool.name, config, callback));
    }
    for (const resource of capability.resources ?? []) {
      const { list } = resource;
      const template = new ResourceTemplate(resource.uriTemplate, {
        list: list ? (extra: CallExtra) => resourceCall(deps, resource, extra, (ctx) => list(ctx)) : undefined,
      });
      const metadata = { title: resource.title, description: resource.description, mimeType: resource.mimeType };
      const read = (uri: URL, variables: Record<string, string | string[]>, extra: CallExtra) =>
        resourceCall(deps, resource, extra, (ctx) => resource.read(uri, variables, ctx));
      registrations.push((server) => void server.registerResource(resource.name, template, metadata, read));
    }
    for (const prompt of capability.prompts ?? []) {
      const config = { title: prompt.title, description: prompt.description, argsSchema: prompt.args };
      const callback = promptCallback(deps, prompt);
      registrations.push((server) => void server.registerPrompt(prompt.name, config, callback));
    }
  }
  return registrations;
}

export type McpServerFactory = () => McpServer;

export function createMcpServerFactory(deps: AppDeps, capabilities: readonly Capability[] = allCapabilities): McpServerFactory {
  const registrations = buildRegistrations(deps, capabilities);
  const serverCapabilities = {
    tools: {},
    ...(capabilities.some((c) => c.resources?.length) ? { resources: {} } : {}),
    ...(capabilities.some((c) => c.prompts?.length) ? { prompts: {} } : {}),
  };
  // Only used to validate elicitation answers; stateless and safe to share.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return () => {
    const server = new McpServer(
      { name: "agent-memory", version: SERVICE_VERSION },
      { instructions: SERVER_INSTRUCTIONS, capabilities: serverCapabilities, jsonSchemaValidator },
    );
    for (const register of registrations) register(server);
    return server;
  };
}
