// The SDK's server side as this service uses it: McpServer and its low-level
// handlers, the protocol's errors, and the wire types capabilities return.
import { McpServer, ProtocolError, ProtocolErrorCode, ResourceTemplate, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";

export { McpServer, ProtocolError, ProtocolErrorCode, ResourceTemplate, SUPPORTED_PROTOCOL_VERSIONS };
export type {
  AuthInfo,
  CacheHint,
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  ListResourcesResult,
  ReadResourceResult,
  ServerContext,
  ToolAnnotations,
} from "@modelcontextprotocol/server";

/** Cache hints of the 2026-07-28 results the SDK builds itself (McpServerOptions.cacheHints). */
export type CacheHints = Partial<Record<"tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" | "resources/read" | "server/discover", import("@modelcontextprotocol/server").CacheHint>>;
