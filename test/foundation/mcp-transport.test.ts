// Differential test of POST /mcp's transport: the same app, once with the SDK's
// StreamableHTTPServerTransport (stateless, JSON answers: what the service used
// before) and once with ours (src/http-shared/mcp-transport.ts). Every request below
// goes through both; status, the headers a client reads and the JSON-RPC body
// must be identical.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeps } from "../../src/app-deps.js";
import { createApp } from "../../src/http/app.js";
import type { McpTransportFactory } from "../../src/http-shared/mcp-route.js";
import { createLogger } from "../../src/logger.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, testConfig } from "../support/service.js";

const sdkTransport: McpTransportFactory = (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  return { transport, handle: (body) => transport.handleRequest(req, res, body) };
};

let tdb: TestDatabase;
let token: string;
const servers: Record<"sdk" | "ours", { server: Server; url: string }> = {} as never;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  token = (await addAgent(tdb.db, "writer")).token;
  const config = testConfig();
  const deps = await createDeps(config, tdb.db, createLogger(config.logLevel));
  for (const [name, mcpTransport] of [["sdk", sdkTransport], ["ours", undefined]] as const) {
    const server = createServer(createApp(deps, mcpTransport ? { mcpTransport } : {}));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers[name] = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
  }
});
afterAll(async () => {
  for (const { server } of Object.values(servers)) await new Promise((resolve) => server.close(resolve));
  await tdb?.drop();
});

const ACCEPT = "application/json, text/event-stream";
const JSON_TYPE = "application/json";

interface Case {
  method?: string;
  headers?: Record<string, string | undefined>;
  /** Sent as is (a string) or as JSON. */
  body?: unknown;
}

const call = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const initialize = (version: string) => call(1, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } });

const CASES: Record<string, Case> = {
  "tools/call whoami": { body: call(1, "tools/call", { name: "whoami", arguments: {} }) },
  "tools/call whoami, string id": { body: call("abc", "tools/call", { name: "whoami", arguments: {} }) },
  "tools/call without arguments": { body: call(2, "tools/call", { name: "whoami" }) },
  "tools/call of an unknown tool": { body: call(3, "tools/call", { name: "nope", arguments: {} }) },
  "tools/call with invalid arguments": { body: call(4, "tools/call", { name: "memory_recall", arguments: { keywords: 5 } }) },
  "tools/call with arguments as an array (refused by the route)": { body: call(5, "tools/call", { name: "whoami", arguments: [] }) },
  "tools/list": { body: call(6, "tools/list") },
  "ping": { body: call(7, "ping") },
  "unknown method": { body: call(8, "no/such/method") },
  initialize: { body: initialize(LATEST_PROTOCOL_VERSION), headers: { "mcp-protocol-version": undefined } },
  "initialize with an old version": { body: initialize("2024-11-05"), headers: { "mcp-protocol-version": undefined } },
  "initialize with an unknown version (negotiated down)": { body: initialize("1999-01-01"), headers: { "mcp-protocol-version": "1999-01-01" } },
  "notification only (202)": { body: { jsonrpc: "2.0", method: "notifications/initialized" } },
  "a client's response (202)": { body: { jsonrpc: "2.0", id: 9, result: {} } },
  "a client's error response (202)": { body: { jsonrpc: "2.0", id: 9, error: { code: -1, message: "x" } } },
  "batch of two requests (refused)": { body: [call(1, "ping"), call(2, "ping")] },
  "empty batch (refused)": { body: [] },
  "batch of notifications (refused)": { body: [{ jsonrpc: "2.0", method: "notifications/initialized" }] },
  "invalid JSON": { body: "{not json" },
  "empty body": { body: "" },
  "JSON null": { body: "null" },
  "JSON number": { body: "42" },
  "JSON string": { body: '"hello"' },
  "not JSON-RPC": { body: { hello: "world" } },
  "wrong jsonrpc version": { body: { jsonrpc: "1.0", id: 1, method: "ping" } },
  "request id null": { body: { jsonrpc: "2.0", id: null, method: "ping" } },
  "missing Accept": { body: call(1, "ping"), headers: { accept: undefined } },
  "Accept without text/event-stream": { body: call(1, "ping"), headers: { accept: "application/json" } },
  "Accept without application/json": { body: call(1, "ping"), headers: { accept: "text/event-stream" } },
  "Accept */*": { body: call(1, "ping"), headers: { accept: "*/*" } },
  "missing Content-Type": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": undefined } },
  "Content-Type text/plain": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": "text/plain" } },
  "Content-Type text/plain with a JSON parameter": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": "text/plain; a=application/json" } },
  "Content-Type with charset": { body: call(1, "ping"), headers: { "content-type": "application/json; charset=utf-8" } },
  "Content-Type in capitals": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": "Application/JSON" } },
  "Content-Type with a malformed parameter (the SDK reads the body itself)": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": "application/json;" } },
  "malformed parameter and invalid JSON": { body: "{oops", headers: { "content-type": "application/json;" } },
  "Content-Type application/json-seq": { body: JSON.stringify(call(1, "ping")), headers: { "content-type": "application/json-seq" } },
  "body over the body limit (express.json refuses it)": { body: JSON.stringify({ ...call(1, "ping"), pad: "x".repeat(1_100_000) }) },
  "body over 4 MiB that the SDK reads itself": { body: JSON.stringify({ ...call(1, "ping"), pad: "x".repeat(4_300_000) }), headers: { "content-type": "application/json;" } },
  "unsupported MCP-Protocol-Version": { body: call(1, "ping"), headers: { "mcp-protocol-version": "1999-01-01" } },
  "unsupported MCP-Protocol-Version on a notification": { body: { jsonrpc: "2.0", method: "notifications/initialized" }, headers: { "mcp-protocol-version": "x" } },
  "missing MCP-Protocol-Version": { body: call(1, "ping"), headers: { "mcp-protocol-version": undefined } },
  "older supported MCP-Protocol-Version": { body: call(1, "tools/call", { name: "whoami", arguments: {} }), headers: { "mcp-protocol-version": "2025-03-26" } },
  "an Mcp-Session-Id is ignored (stateless)": { body: call(1, "ping"), headers: { "mcp-session-id": "abc" } },
  "missing token": { body: call(1, "ping"), headers: { authorization: undefined } },
  GET: { method: "GET", headers: { accept: "text/event-stream" } },
  DELETE: { method: "DELETE" },
  PUT: { method: "PUT", body: call(1, "ping") },
};

/** The parts of an answer a client reads. */
async function send(which: "sdk" | "ours", c: Case) {
  const headers: Record<string, string> = {};
  const all = { accept: ACCEPT, "content-type": JSON_TYPE, "mcp-protocol-version": LATEST_PROTOCOL_VERSION, authorization: `Bearer ${token}`, ...c.headers };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) headers[k] = v;
  const method = c.method ?? "POST";
  const body = method === "GET" || method === "DELETE" ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  const res = await fetch(servers[which].url, { method, headers, body });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON (e.g. the empty body of a 202): compared as text.
  }
  const read = ["content-type", "allow", "mcp-session-id", "www-authenticate", "retry-after", "cache-control", "etag", "content-encoding"];
  return { status: res.status, headers: Object.fromEntries(read.map((h) => [h, res.headers.get(h)])), body: json };
}

describe("POST /mcp answers the same through the SDK transport and ours", () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const sdk = await send("sdk", c);
      const ours = await send("ours", c);
      expect(ours).toEqual(sdk);
    });
  }

  it("the cases cover every status the transports give", async () => {
    const statuses = new Set<number>();
    for (const c of Object.values(CASES)) statuses.add((await send("ours", c)).status);
    expect([...statuses].sort()).toEqual([200, 202, 400, 401, 405, 406, 413, 415]);
  });

  it("a real MCP client works through ours, several calls at once on one client", async () => {
    const client = await connectClient(servers.ours.url, token);
    const results = await Promise.all(Array.from({ length: 20 }, () => client.callTool({ name: "whoami", arguments: {} })));
    for (const r of results) expect(r.structuredContent).toMatchObject({ name: "writer", kind: "agent" });
    await client.close();
  });
});
