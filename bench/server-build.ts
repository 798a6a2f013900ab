// The per-request cost of building the MCP server (stateless HTTP builds one per
// request), the way it is done now and the naive way, in one run:
//   node --import tsx bench/server-build.ts
// naive: a new McpServer (with its own Ajv validator) and every capability's
// registrations built again from the definitions; now: the factory replays
// registrations built once, with one shared validator.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { loadConfig } from "../src/config.js";
import { openPglite } from "../src/db/pglite.js";
import { createLogger } from "../src/logger.js";
import { createDeps } from "../src/app-deps.js";
import { capabilities } from "../src/capabilities.js";
import { buildRegistrations, createMcpServerFactory } from "../src/mcp/server.js";
import { SERVER_INSTRUCTIONS } from "../src/mcp/instructions.js";

// Real deps (an in-memory embedded database, never queried here): building a
// server touches none of them, but the factory takes what the service passes.
const config = loadConfig({ LOG_LEVEL: "silent" });
const db = await openPglite({ dataDir: undefined, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 });
const deps = await createDeps(config, db, createLogger(config.logLevel));

function perCallMicroseconds(build: () => unknown, n = 3000): number {
  for (let i = 0; i < 300; i++) build();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) build();
  return ((performance.now() - t0) / n) * 1000;
}

const naive = () => {
  const server = new McpServer({ name: "agent-memory", version: "0" }, { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {}, resources: {} } });
  for (const register of buildRegistrations(deps, capabilities)) register(server);
  return server;
};
const factory = createMcpServerFactory(deps);

const rows = [
  ["naive: new McpServer + register every tool", perCallMicroseconds(naive)],
  ["now: recorded registrations + shared validator", perCallMicroseconds(factory)],
] as const;
for (const [label, us] of rows) console.log(`${label.padEnd(50)} ${us.toFixed(0).padStart(6)} µs per request`);
await db.close();
