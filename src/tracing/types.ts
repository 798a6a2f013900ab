// What the MCP route and the span implementation (mcp-spans.ts) share.

/**
 * OpenTelemetry's memory operations (gen_ai.operation.name, semantic conventions
 * for GenAI memory): a tool that is one gets a span of that name under its call.
 */
export type MemoryOperation = "search_memory" | "create_memory" | "update_memory" | "upsert_memory" | "delete_memory";

/** What the server offers, by name: a span names what was called only when it is one of these. */
export interface RegisteredNames {
  tools: ReadonlySet<string>;
  /** The tools that are memory operations, and which. */
  memoryOperations: ReadonlyMap<string, MemoryOperation>;
  prompts: ReadonlySet<string>;
  /** Fixed resources' URIs (a fact's URI is named by its template). */
  resources: ReadonlySet<string>;
}

/** What the route knows of one MCP request before it runs. */
export interface McpRequestInfo {
  /** The parsed JSON-RPC message. */
  body: unknown;
  /** The HTTP request's headers (traceparent, mcp-protocol-version). */
  headers: Record<string, string | string[] | undefined>;
  /** The authenticated agent's name, if any. */
  agent: string | undefined;
  registered: RegisteredNames;
}

/** What the request's callbacks noted once it has run (auth/caller.ts RequestTrace). */
export interface McpRequestResult {
  /** A tool's outcome: "ok" or the refusal's code (then error.type = tool_error). */
  outcome?: string | undefined;
  /** Facts served. */
  served?: number | undefined;
  /** The one scope they were in. */
  storeId?: string | undefined;
}

export interface McpTracing {
  /** Runs one MCP request inside its server span; `after` tells what it did. */
  request(info: McpRequestInfo, work: () => Promise<void>, after: () => McpRequestResult): Promise<void>;
}
