// One server span per MCP request, by OpenTelemetry's MCP semantic conventions
// (status Development): named "{mcp.method.name} {target}" (e.g. "tools/call
// memory_recall"), in the caller's trace: params._meta.traceparent when the
// message carries one (SEP-414), else the HTTP request's traceparent header
// (which the HTTP instrumentation already continued). Its attributes say what
// was called and by whom, never the arguments or the answer. Postgres statements
// run inside it, so the pg instrumentation's spans are its children.
import { context, propagation, type Attributes, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { SERVICE_VERSION } from "../version.js";
import type { McpRequestInfo, McpRequestResult, McpTracing } from "./types.js";

interface JsonRpcMessage {
  method?: unknown;
  id?: unknown;
  params?: { name?: unknown; uri?: unknown; protocolVersion?: unknown; _meta?: Record<string, unknown> } | undefined;
}

const header = (headers: McpRequestInfo["headers"], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The span's name and the attributes known before the request runs. */
export function requestAttributes(info: McpRequestInfo): { name: string; attributes: Attributes } {
  const message = (typeof info.body === "object" && info.body !== null ? info.body : {}) as JsonRpcMessage;
  const method = typeof message.method === "string" ? message.method : "unknown";
  const params = typeof message.params === "object" && message.params !== null ? message.params : {};
  const attributes: Attributes = { "mcp.method.name": method, "network.transport": "tcp", "network.protocol.name": "http" };
  let target: string | undefined;
  if (method === "tools/call" && typeof params.name === "string") {
    target = params.name;
    attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (method === "prompts/get" && typeof params.name === "string") {
    target = params.name;
    attributes["gen_ai.prompt.name"] = target;
  } else if (method === "resources/read" && typeof params.uri === "string") {
    // A fact's URI names its scope and name, which are what a reader may see of it in a trace store: the template instead.
    target = params.uri.startsWith("memory://facts/") ? "memory://facts/{scope}/{name}" : params.uri;
    attributes["mcp.resource.uri"] = target;
  }
  if (typeof message.id === "string" || typeof message.id === "number") attributes["jsonrpc.request.id"] = String(message.id);
  const version = header(info.headers, "mcp-protocol-version") ?? (typeof params.protocolVersion === "string" ? params.protocolVersion : undefined);
  if (version) attributes["mcp.protocol.version"] = version;
  if (info.agent) attributes["gen_ai.agent.name"] = info.agent;
  return { name: target ? `${method} ${target}` : method, attributes };
}

/** The attributes known once it has run. */
export function resultAttributes(method: unknown, result: McpRequestResult): Attributes {
  const attributes: Attributes = {};
  if (result.served !== undefined) attributes["agent_memory.records_returned"] = result.served;
  if (result.storeId !== undefined) attributes["gen_ai.memory.store.id"] = result.storeId;
  if (method === "tools/call" && result.outcome !== undefined && result.outcome !== "ok") attributes["error.type"] = "tool_error";
  return attributes;
}

export function otelMcpTracing(): McpTracing {
  const tracer = trace.getTracer("agent-memory", SERVICE_VERSION);
  return {
    async request(info, work, after) {
      const { name, attributes } = requestAttributes(info);
      const meta = (info.body as JsonRpcMessage | undefined)?.params?._meta;
      // The caller's context from _meta first (it names the MCP call itself), else the current one (the HTTP span).
      const parent = meta && typeof meta.traceparent === "string" ? propagation.extract(context.active(), meta) : context.active();
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      try {
        await context.with(trace.setSpan(parent, span), work);
        const done = resultAttributes(attributes["mcp.method.name"], after());
        span.setAttributes(done);
        if (done["error.type"]) span.setStatus({ code: SpanStatusCode.ERROR });
      } catch (error) {
        span.setAttribute("error.type", error instanceof Error ? error.name : "Error");
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  };
}
