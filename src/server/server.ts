// Builds the MCP server for each request from the capabilities' definitions
// (src/server/capabilities.ts lists them; this file knows none of them by name).
//
// Stateless HTTP needs a fresh McpServer per request (the SDK forbids reusing a
// server or transport across requests). Two things made that expensive and are
// done once here instead: the JSON-schema validator (an Ajv instance, ~200 µs to
// build) is shared, and the registrations (zod schemas, ~25 µs per tool to build,
// and the wrapped callbacks) are built once per factory and replayed into each
// new server.
import * as z from "zod/v4";
import type { AppDeps } from "../app-deps.js";
import { advertisedInputSchema } from "../mcp/arguments.js";
import { type Completer, completionHandler } from "../mcp/complete.js";
import { type CallExtra, promptCallback, resourceCall, toolCallback } from "../mcp/guard.js";
import { SERVER_INSTRUCTIONS } from "../mcp/instructions.js";
import { unknownToolText } from "../mcp/unknown-tool.js";
import { type PromptEntry, promptGetHandler } from "../mcp/prompt-get.js";
import type { Capability } from "../mcp/tool.js";
import { type AuthInfo, type CacheHints, McpServer, ResourceTemplate, type ServerContext } from "../mcp-sdk/index.js";
import type { RegisteredNames } from "../tracing/types.js";
import { SERVICE_VERSION } from "../version.js";
import { capabilities as allCapabilities } from "./capabilities.js";

/** The part of a handler's context the callbacks read: the request's caller, as the SDK passes it on. */
const extraOf = (ctx: ServerContext): CallExtra => ({ authInfo: ctx.http?.authInfo });

/**
 * How long a 2026-07-28 client may reuse a list result (cacheScope private:
 * every answer depends on the caller's token). The tools, prompts and resource
 * templates are those of this build: an hour. The facts a resources/list or
 * resources/read shows change with every write: not reused.
 */
const STATIC_LIST_TTL_MS = 60 * 60 * 1000;
const CACHE_HINTS: CacheHints = {
  "tools/list": { ttlMs: STATIC_LIST_TTL_MS, cacheScope: "private" },
  "prompts/list": { ttlMs: STATIC_LIST_TTL_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: STATIC_LIST_TTL_MS, cacheScope: "private" },
  "server/discover": { ttlMs: STATIC_LIST_TTL_MS, cacheScope: "private" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/** Registers every capability's tools, resources and prompts on one server. */
type Registration = (server: McpServer) => void;

/** Each tool's registration, by tool name. */
function buildToolRegistrations(deps: AppDeps, capabilities: readonly Capability[]): Map<string, Registration> {
  const registrations = new Map<string, Registration>();
  for (const capability of capabilities) {
    for (const tool of capability.tools) {
      const config = {
        title: tool.title,
        description: tool.description,
        // The SDK accepts any arguments; toolCallback checks them (src/mcp/arguments.ts says why).
        inputSchema: advertisedInputSchema(tool.inputSchema),
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        ...(tool.meta ? { _meta: tool.meta } : {}),
      };
      const callback = toolCallback(deps, tool);
      registrations.set(tool.name, (server) => void server.registerTool(tool.name, config, (args: Record<string, unknown>, ctx: ServerContext) => callback(args, extraOf(ctx))));
    }
  }
  return registrations;
}

/** The resources' and prompts' registrations. */
function buildOtherRegistrations(deps: AppDeps, capabilities: readonly Capability[]): Registration[] {
  const registrations: Registration[] = [];
  const prompts = new Map<string, PromptEntry>();
  const completions = { prompts: new Map<string, z.ZodRawShape>(), templates: new Map<string, Readonly<Record<string, Completer>>>() };
  for (const capability of capabilities) {
    for (const resource of capability.resources ?? []) {
      const { list } = resource;
      const completers = resource.complete ?? {};
      completions.templates.set(resource.uriTemplate, completers);
      // The completion handler (src/mcp/complete.ts) answers for the template's variables; the SDK only lists the template.
      const template = new ResourceTemplate(resource.uriTemplate, {
        list: list ? (ctx: ServerContext) => resourceCall(deps, resource, extraOf(ctx), (c) => list(c)) : undefined,
      });
      const metadata = { title: resource.title, description: resource.description, mimeType: resource.mimeType };
      const read = (uri: URL, variables: Record<string, string | string[]>, ctx: ServerContext) =>
        resourceCall(deps, resource, extraOf(ctx), (c) => resource.read(uri, variables, c));
      registrations.push((server) => void server.registerResource(resource.name, template, metadata, read));
    }
    for (const resource of capability.fixedResources ?? []) {
      const metadata = { title: resource.title, description: resource.description, mimeType: resource.mimeType, ...(resource.meta ? { _meta: resource.meta } : {}) };
      const read = (uri: URL, ctx: ServerContext) => resourceCall(deps, resource, extraOf(ctx), (c) => resource.read(uri, c));
      registrations.push((server) => void server.registerResource(resource.name, resource.uri, metadata, read));
    }
    for (const prompt of capability.prompts ?? []) {
      const schema = z.object(prompt.args);
      const config = { title: prompt.title, description: prompt.description, argsSchema: schema };
      const callback = promptCallback(deps, prompt);
      prompts.set(prompt.name, { schema, callback });
      completions.prompts.set(prompt.name, prompt.args);
      // The SDK's registration answers prompts/list and sets the capability; prompts/get is this service's (prompt-get.ts).
      registrations.push((server) => void server.registerPrompt(prompt.name, config, (args: Record<string, unknown>, ctx: ServerContext) => callback(args, extraOf(ctx))));
    }
  }
  // After the SDK's registrations, which set its own prompts/get handler.
  if (prompts.size > 0) registrations.push(promptGetHandler(prompts));
  if (completions.prompts.size > 0 || completions.templates.size > 0) registrations.push(completionHandler(deps, completions));
  return registrations;
}

/**
 * A new server for one request. Given the request's message: a `tools/call` of a
 * known tool gets a server with that tool alone (the SDK's tools/call handler
 * reads nothing but the called tool's registration, so the answer is the same,
 * and the other 20 tools, the resources and the prompts, whose argument schemas
 * the SDK rebuilds on every registration, are not built for nothing). Anything
 * else (initialize, the lists, an unknown tool, a malformed message) gets every
 * registration.
 */
export interface McpServerFactory {
  (message?: unknown): McpServer;
  /** What its servers offer, by name (a span names only these: src/tracing/mcp-spans.ts). */
  readonly registered: RegisteredNames;
}

export type { AuthInfo };

export function createMcpServerFactory(deps: AppDeps, capabilities: readonly Capability[] = allCapabilities): McpServerFactory {
  const tools = buildToolRegistrations(deps, capabilities);
  const registered: RegisteredNames = {
    tools: new Set(tools.keys()),
    memoryOperations: new Map(capabilities.flatMap((c) => c.tools.flatMap((t) => (t.memoryOperation ? [[t.name, t.memoryOperation] as const] : [])))),
    prompts: new Set(capabilities.flatMap((c) => (c.prompts ?? []).map((p) => p.name))),
    resources: new Set(capabilities.flatMap((c) => (c.fixedResources ?? []).map((r) => r.uri))),
  };
  const registrations = [...tools.values(), ...buildOtherRegistrations(deps, capabilities)];
  const serverCapabilities = {
    tools: {},
    ...(capabilities.some((c) => c.resources?.length || c.fixedResources?.length) ? { resources: {} } : {}),
    ...(capabilities.some((c) => c.prompts?.length) ? { prompts: {} } : {}),
  };
  const factory = (message?: unknown) => {
    const server = new McpServer({ name: "agent-memory", version: SERVICE_VERSION }, { instructions: SERVER_INSTRUCTIONS, capabilities: serverCapabilities, cacheHints: CACHE_HINTS });
    const called = calledToolName(message);
    const only = tools.get(called ?? "");
    if (only) only(server);
    else for (const register of registrations) register(server);
    // A call of a tool we do not have: the SDK would say only "Tool X not found"
    // (as a tool error); this server serves that one request, so its answer is ours.
    if (called !== undefined && !only) {
      const text = unknownToolText(called, [...tools.keys()]);
      server.server.setRequestHandler("tools/call", () => ({ content: [{ type: "text" as const, text }], isError: true }));
    }
    return server;
  };
  return Object.assign(factory, { registered });
}

/** The tool a tools/call message names, if it is one. */
function calledToolName(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== "tools/call" || typeof params !== "object" || params === null) return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
