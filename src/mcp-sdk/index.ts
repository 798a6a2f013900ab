// The one place this service meets the MCP TypeScript SDK (v2): every import of
// an @modelcontextprotocol package is in this folder (the layering check refuses
// one anywhere else), so that an SDK move touches these files alone.
//
// - protocol.ts: the server (McpServer, the low-level handlers this service
//   answers itself), protocol errors and the wire types the capabilities use;
// - endpoint.ts: serving one factory to both eras of the protocol over HTTP
//   (2026-07-28 per request, and 2025-era clients statelessly);
// - resource-server.ts: bearer tokens on /mcp and /oauth/mcp (v2's helpers);
// - authorization-server.ts: the OAuth wire schemas and types the built-in
//   authorization server (src/oauth/, our own code) speaks;
// - apps.ts: MCP Apps (the review app's resource).
export * from "./protocol.js";
export * from "./endpoint.js";
export * from "./resource-server.js";
export * from "./authorization-server.js";
export * from "./apps.js";
