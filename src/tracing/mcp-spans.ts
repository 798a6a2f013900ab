// One server span per MCP request, by OpenTelemetry's MCP semantic conventions
// (status Development): named "{mcp.method.name} {target}" (e.g. "tools/call
// memory_recall"), in the caller's trace: params._meta.traceparent when the
// message carries one (SEP-414), else the HTTP request's traceparent header
// (which the HTTP instrumentation already continued). Its attributes say what
// was called and by whom, never the arguments or the answer. Postgres statements
// run inside it, so the pg instrumentation's spans are its children. A tool that
// is a memory operation (search_memory, upsert_memory…) runs in a span of that
// name under it, by the GenAI memory conventions (kind internal: the store is
// this process), with the records' count and store; never the query or records.
import { context, propagation, type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { clip } from "../text.js";
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

/**
 * The methods a span names as sent: MCP's requests and notifications from a
 * client. Anything else is named UNKNOWN: the method is the caller's text, and
 * a span name is indexed by every trace store.
 */
const MCP_METHODS = new Set([
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "server/discover",
  "subscriptions/listen",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/roots/list_changed",
]);
/** What a span says for a method, tool, prompt or resource this server does not have (never the caller's text). */
export const UNKNOWN = "(unregistered)";
/** The most of a caller's own text (a request id, a protocol version) an attribute keeps. */
export const CALLER_TEXT_MAX_CHARS = 64;

/** The span's name and the attributes known before the request runs. */
export function requestAttributes(info: McpRequestInfo): { name: string; attributes: Attributes } {
  const message = (typeof info.body === "object" && info.body !== null ? info.body : {}) as JsonRpcMessage;
  const method = typeof message.method === "string" && MCP_METHODS.has(message.method) ? message.method : UNKNOWN;
  const params = typeof message.params === "object" && message.params !== null ? message.params : {};
  const attributes: Attributes = { "mcp.method.name": method, "network.transport": "tcp", "network.protocol.name": "http" };
  const registered = (names: ReadonlySet<string>, name: unknown) => (typeof name === "string" && names.has(name) ? name : UNKNOWN);
  let target: string | undefined;
  if (method === "tools/call") {
    target = registered(info.registered.tools, params.name);
    attributes["gen_ai.tool.name"] = target;
    attributes["gen_ai.operation.name"] = "execute_tool";
  } else if (method === "prompts/get") {
    target = registered(info.registered.prompts, params.name);
    attributes["gen_ai.prompt.name"] = target;
  } else if (method === "resources/read") {
    // A fact's URI names its scope and name, which are what a reader may see of it in a trace store: the template instead.
    target = typeof params.uri === "string" && params.uri.startsWith("memory://facts/") ? "memory://facts/{scope}/{name}" : registered(info.registered.resources, params.uri);
    attributes["mcp.resource.uri"] = target;
  }
  if (typeof message.id === "string" || typeof message.id === "number") attributes["jsonrpc.request.id"] = clip(String(message.id), CALLER_TEXT_MAX_CHARS);
  const version = header(info.headers, "mcp-protocol-version") ?? (typeof params.protocolVersion === "string" ? params.protocolVersion : undefined);
  if (version) attributes["mcp.protocol.version"] = clip(version, CALLER_TEXT_MAX_CHARS);
  if (info.agent) attributes["gen_ai.agent.name"] = info.agent;
  return { name: target ? `${method} ${target}` : method, attributes };
}

/** The memory operation a request is, if it calls a tool that is one. */
function memoryOperation(info: McpRequestInfo, attributes: Attributes): string | undefined {
  const tool = attributes["gen_ai.tool.name"];
  return typeof tool === "string" ? info.registered.memoryOperations.get(tool) : undefined;
}

/** The memory span's attributes once it has run: how many records it served, from which store (scope). */
function memoryResultAttributes(result: McpRequestResult): Attributes {
  const attributes: Attributes = {};
  if (result.served !== undefined) attributes["gen_ai.memory.record.count"] = result.served;
  if (result.storeId !== undefined) attributes["gen_ai.memory.store.id"] = result.storeId;
  if (result.outcome !== undefined && result.outcome !== "ok") attributes["error.type"] = "tool_error";
  return attributes;
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
      const inRequest = trace.setSpan(parent, span);
      const operation = memoryOperation(info, attributes);
      const memorySpan = operation ? tracer.startSpan(operation, { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": operation } }, inRequest) : undefined;
      const end = (s: Span, done: Attributes) => {
        s.setAttributes(done);
        if (done["error.type"]) s.setStatus({ code: SpanStatusCode.ERROR });
        s.end();
      };
      try {
        await context.with(memorySpan ? trace.setSpan(inRequest, memorySpan) : inRequest, work);
        const result = after();
        if (memorySpan) end(memorySpan, memoryResultAttributes(result));
        end(span, resultAttributes(attributes["mcp.method.name"], result));
      } catch (error) {
        const failed = { "error.type": error instanceof Error ? error.name : "Error" };
        if (memorySpan) end(memorySpan, failed);
        end(span, failed);
        throw error;
      }
    },
  };
}
