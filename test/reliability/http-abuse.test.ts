// Raw HTTP abuse against a real service process: malformed JSON, wrong content
// types, missing Accept, oversize bodies, batches, unknown methods, absurd
// headers and URLs. Each gets a clear 4xx (a JSON body saying what is wrong,
// where the server gets to answer at all), nothing is logged as a server error,
// and the service keeps answering normally.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { assertAlive, callToolOk, MCP_HEADERS, type RawAnswer, rawRequest, type Replica, startReplica, stopAllReplicas, toolCall } from "./support.js";

const MAX_BODY_BYTES = 65_536;

let tdb: TestDatabase;
let replica: Replica;
let agent: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  agent = await addAgent(tdb.db, "agent");
  replica = await startReplica(tdb.url!, { MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
});
afterAll(async () => {
  await stopAllReplicas();
});

/** One request to the replica with exactly these headers and bytes. */
const raw = (path: string, method: string, headers: Record<string, string>, body?: string | Buffer) => rawRequest(replica.url, path, { method, headers, body });

const auth = () => ({ ...MCP_HEADERS, Authorization: `Bearer ${agent.token}` });
const whoami = () => JSON.stringify(toolCall("whoami", {}));

function expectJsonRpcError(answer: RawAnswer, status: number, code: number, message: RegExp): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { jsonrpc: string; error: { code: number; message: string }; id: unknown };
  expect(body).toMatchObject({ jsonrpc: "2.0", error: { code } });
  // The request's id when it could be read (all these send 1), else null.
  expect([null, 1]).toContain(body.id);
  expect(body.error.message).toMatch(message);
}

let nested = "1";
for (let i = 0; i < 5000; i++) nested = `[${nested}]`;

describe("malformed requests get a clear 4xx", () => {
  it.each([
    ["malformed JSON", '{"jsonrpc": "2.0", "id": 1, "method":', 400, -32700, /not valid JSON/],
    ["a JSON string instead of a message", '"tools/call"', 400, -32700, /not valid JSON/],
    // Valid JSON that is no JSON-RPC request: Invalid Request (-32600), as JSON-RPC 2.0 says (not a parse error).
    ["an empty body", "", 400, -32600, /not a valid JSON-RPC message/],
    ["a message without jsonrpc", JSON.stringify({ id: 1, method: "tools/list" }), 400, -32600, /not a valid JSON-RPC message/],
    ["jsonrpc 1.0", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "tools/list" }), 400, -32600, /not a valid JSON-RPC message/],
    ["an object as id", JSON.stringify({ jsonrpc: "2.0", id: { x: 1 }, method: "tools/list" }), 400, -32600, /not a valid JSON-RPC message/],
    ["5,000 levels of nested arrays as params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${nested}}`, 400, -32600, /more than 64 levels deep/],
    ["5,000 levels of nested arrays as an argument", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_recall","arguments":{"keywords":${nested}}}}`, 400, -32600, /more than 64 levels deep/],
    ["a batch of two calls", JSON.stringify([toolCall("whoami", {}), toolCall("whoami", {})]), 400, -32600, /Batch requests are not supported/],
    ["an empty batch", "[]", 400, -32600, /Batch requests are not supported/],
    ["a body over MAX_BODY_BYTES", JSON.stringify(toolCall("memory_store", { body: "x".repeat(MAX_BODY_BYTES) })), 413, -32600, /larger than the 65536-byte limit/],
  ] as const)("%s", async (_label, body, status, code, message) => {
    expectJsonRpcError(await raw("/mcp", "POST", auth(), body), status, code, message);
  });

  it("bytes that are not UTF-8 JSON", async () => {
    expectJsonRpcError(await raw("/mcp", "POST", auth(), Buffer.from([0xff, 0xfe, 0x00, 0x7b])), 400, -32700, /not valid JSON/);
  });

  it.each([
    ["text/plain", { "Content-Type": "text/plain" }, 415, /Content-Type must be application\/json/],
    ["a form", { "Content-Type": "application/x-www-form-urlencoded" }, 415, /Content-Type must be application\/json/],
    ["latin1 JSON", { "Content-Type": "application/json; charset=latin1" }, 415, /send UTF-8 JSON/],
    ["a gzip body that is not gzip", { "Content-Encoding": "gzip" }, 400, /Bad request/],
    ["no Accept header", { Accept: "" }, 406, /must accept both application\/json and text\/event-stream/],
    ["Accept without event-stream", { Accept: "application/json" }, 406, /must accept both application\/json and text\/event-stream/],
  ] as const)("wrong headers: %s", async (_label, headers, status, message) => {
    const all: Record<string, string> = { ...auth(), ...headers };
    if (all.Accept === "") delete all.Accept;
    const answer = await raw("/mcp", "POST", all, whoami());
    expect(answer.status, answer.body).toBe(status);
    expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toMatch(message);
  });

  it("unknown JSON-RPC methods are answered 'Method not found'", async () => {
    const answer = await raw("/mcp", "POST", auth(), JSON.stringify({ jsonrpc: "2.0", id: 7, method: "admin/dropEverything", params: {} }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found" } });
  });

  it.each(["GET", "PUT", "PATCH", "DELETE", "OPTIONS"])("HTTP %s on /mcp is 405 with Allow: POST", async (method) => {
    const answer = await raw("/mcp", method, auth(), ["PUT", "PATCH"].includes(method) ? whoami() : undefined);
    expectJsonRpcError(answer, 405, -32000, /send MCP messages with POST/);
    expect(answer.headers.allow).toBe("POST");
  });

  it("unknown paths and path tricks are a JSON 404", async () => {
    for (const path of ["/admin", "/../../etc/passwd", "/%6dcp", "//mcp", "/mcp%00"]) {
      const answer = await raw(path, "POST", auth(), whoami());
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body), path).toMatchObject({ error: "not_found" });
    }
  });

  it("oversized headers and URLs are refused by the HTTP parser (431), not processed", async () => {
    const results = await Promise.all([
      raw("/mcp", "POST", { ...auth(), "X-Junk": "a".repeat(20_000) }, whoami()),
      raw("/mcp", "POST", { ...auth(), "X-Junk": "a".repeat(200_000) }, whoami()),
      raw("/mcp", "POST", Object.fromEntries([...Object.entries(auth()), ...Array.from({ length: 3000 }, (_, i) => [`x-h${i}`, "v"])]), whoami()),
      raw(`/mcp?${"q".repeat(100_000)}`, "POST", auth(), whoami()),
    ]);
    // The server answers 431 and closes; a client still sending may only see the reset.
    for (const r of results) expect([431, "reset"]).toContain(r.status);
    expect(results.filter((r) => r.status === 431).length).toBeGreaterThan(0);
  });

  it("an absurdly long bearer token is an ordinary 401", async () => {
    const answer = await raw("/mcp", "POST", { ...MCP_HEADERS, Authorization: `Bearer ${"a".repeat(10_000)}` }, whoami());
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_token" });
  });
});

describe("the service is unaffected", () => {
  it("survives a concurrent flood of bad requests and answers normally, with no server error logged", async () => {
    const bad = ['{"jsonrpc":', "[]", "null", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope" }), "x".repeat(MAX_BODY_BYTES + 1)];
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => raw("/mcp", "POST", auth(), bad[i % bad.length])));
    for (const a of answers) expect(a.status === "reset" || (a.status >= 200 && a.status < 500), JSON.stringify(a)).toBe(true);

    assertAlive(replica);
    expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
    const me = await callToolOk<{ name: string }>(replica.mcpUrl, agent.token, "whoami", {});
    expect(me.name).toBe("agent");
    const errors = replica.process
      .stdout()
      .split("\n")
      .filter((line) => line.includes('"level":50'));
    expect(errors).toEqual([]);
  });
});
