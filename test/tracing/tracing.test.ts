// OpenTelemetry traces from the built service as an operator runs it (the SDK
// must start before pg and express load, so the process is the point): an
// OTLP/HTTP receiver started here collects what the service exports
// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). With tracing on, a tools/call sent
// with _meta.traceparent gives one server span in the caller's trace, named and
// attributed by the MCP conventions, with Postgres statements as its children
// and no argument or parameter value anywhere; a refused call is marked
// tool_error. With tracing off (OTEL_SDK_DISABLED), nothing is sent.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type ServeProcess } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, MCP_HEADERS } from "../support/service.js";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number };
}
interface ReceivedSpan extends OtlpSpan {
  service: string;
  attrs: Record<string, string | number | boolean | undefined>;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_INTERNAL = 1;

/** A tiny OTLP/HTTP (JSON) traces receiver: every span posted to /v1/traces, with its service's name. */
function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[]; bodies: string[] }> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        bodies.push(body);
        const parsed = JSON.parse(body) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const rs of parsed.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue ?? "";
          for (const ss of rs.scopeSpans)
            for (const span of ss.spans) {
              const attrs = Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : a.value.boolValue)]));
              spans.push({ ...span, service, attrs });
            }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, bodies })));
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A collector that takes connections and never answers them. */
function startStalledReceiver(): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer(() => void requests++);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests })));
}

/** A tools/call of whoami whose JSON-RPC id is `id`, sent as a raw request. */
async function whoamiWithId(mcpUrl: string, token: string, id: string): Promise<void> {
  const response = await fetch(mcpUrl, {
    method: "POST",
    headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}`, "MCP-Protocol-Version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

/** The process's resident memory, in MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

async function stopServe(serve: ServeProcess): Promise<void> {
  serve.child.kill("SIGTERM");
  await serve.exited;
}

describe("OpenTelemetry traces", () => {
  let tdb: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  const keyword = `kw${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    receiver = await startReceiver();
    token = (await addAgent(tdb.db, "tracer", { scopes: ["shared"] })).token;
  });
  afterAll(async () => {
    receiver?.server.close();
  });

  const serveWith = (env: Record<string, string>) =>
    startServe({
      DATABASE_URL: tdb.url!,
      FIRST_START_OWNER: "false",
      LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      ...env,
    });

  const calls = async (mcpUrl: string, traceparent?: string) => {
    const client: Client = await connectClient(mcpUrl, token);
    try {
      await client.callTool({ name: "memory_store", arguments: { name: `fact-${keyword}`, description: `About ${keyword}`, type: "project", body: `The ${keyword} rule.` } });
      const recalled = (await client.callTool({ name: "memory_recall", arguments: { keywords: [keyword] }, ...(traceparent ? { _meta: { traceparent } } : {}) })) as CallToolResult;
      expect(recalled.isError, JSON.stringify(recalled.content)).toBeFalsy();
      const refused = (await client.callTool({ name: "memory_recall", arguments: { keywords: [keyword], limit: 500 } })) as CallToolResult;
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  };

  it("sends nothing when off", async () => {
    const off = serveWith({ OTEL_SDK_DISABLED: "true", OTEL_SERVICE_NAME: "am-off" });
    try {
      await calls(await off.ready);
    } finally {
      await stopServe(off);
    }
    // The process has ended: an SDK would have exported what it buffered on shutdown.
    expect(receiver.bodies).toEqual([]);
  });

  it("exports a server span per MCP request in the caller's trace, with Postgres children and no values", async () => {
    const callerTrace = randomBytes(16).toString("hex");
    const callerSpan = randomBytes(8).toString("hex");
    const on = serveWith({ OTEL_SERVICE_NAME: "am-on" });
    try {
      const mcpUrl = await on.ready;
      await calls(mcpUrl, `00-${callerTrace}-${callerSpan}-01`);
      // The console's routes are traced too (express).
      expect((await fetch(mcpUrl.replace(/\/mcp$/, "/console/sign-in"))).status).toBe(200);
      const recall = await until("memory_recall span", () => receiver.spans.find((s) => s.name === "tools/call memory_recall" && s.traceId === callerTrace));
      expect(recall).toMatchObject({ service: "am-on", kind: SPAN_KIND_SERVER, parentSpanId: callerSpan });
      expect(recall.attrs).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "memory_recall",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.agent.name": "tracer",
        "gen_ai.memory.store.id": "shared",
        "agent_memory.records_returned": 1,
      });
      expect(recall.attrs["jsonrpc.request.id"]).toMatch(/^\d+$/);
      expect(recall.attrs["mcp.protocol.version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(recall.attrs["error.type"]).toBeUndefined();

      // The recall is a memory operation: a span of OpenTelemetry's GenAI memory conventions under the call, the statements under it.
      const search = await until("search_memory span", () => receiver.spans.find((s) => s.name === "search_memory" && s.parentSpanId === recall.spanId));
      expect(search).toMatchObject({ kind: SPAN_KIND_INTERNAL, attrs: { "gen_ai.operation.name": "search_memory", "gen_ai.memory.record.count": 1, "gen_ai.memory.store.id": "shared" } });
      const statements = await until("Postgres spans under the recall", () => {
        const children = receiver.spans.filter((s) => s.parentSpanId === search.spanId && s.attrs["db.system.name"] === "postgresql");
        return children.length > 0 ? children : undefined;
      });
      for (const s of statements) {
        expect(s.traceId).toBe(callerTrace);
        expect(Object.keys(s.attrs).filter((k) => k.includes("parameter") || k === "db.statement.values")).toEqual([]);
      }

      const refused = await until("refused call span", () => receiver.spans.find((s) => s.name === "tools/call memory_recall" && s.attrs["error.type"] === "tool_error"));
      expect(refused.status?.code).toBe(2);
      const consoleSpan = await until("console route span", () => receiver.spans.find((s) => s.attrs["http.route"] === "/console/sign-in" && s.kind === SPAN_KIND_SERVER));
      expect(consoleSpan.name).toBe("GET /console/sign-in");
      // The refused call came without _meta: its span continues the HTTP request's trace, not the first call's.
      expect(refused.traceId).not.toBe(callerTrace);
    } finally {
      await stopServe(on);
      if (process.env.DUMP_SPANS) console.log(receiver.spans.map((s) => `${s.traceId.slice(0, 6)} ${s.spanId.slice(0, 6)} <- ${(s.parentSpanId ?? "").slice(0, 6)} ${s.name} ${JSON.stringify(s.attrs)}`).join("\n"));
    }
    // Arguments and results are never recorded: the keyword, sent as an argument and stored in a fact, appears nowhere.
    expect(receiver.bodies.join("\n")).not.toContain(keyword);
  });

  it("records no caller-chosen name, console path, query or error text, and decides sampling itself", async () => {
    const secret = `zz${randomBytes(6).toString("hex")}`;
    const on = serveWith({ OTEL_SERVICE_NAME: "am-bounded" });
    const unsampledTrace = randomBytes(16).toString("hex");
    const sent = receiver.bodies.length;
    try {
      const mcpUrl = await on.ready;
      const client: Client = await connectClient(mcpUrl, token);
      try {
        // A tool this server does not have, named by the caller.
        expect(((await client.callTool({ name: `tool-${secret}`, arguments: {} })) as CallToolResult).isError).toBe(true);
        // A Postgres error whose text names an entity: more observations than one entity may carry.
        const bound = (await client.callTool({ name: "create_entities", arguments: { entities: [{ name: `bound-${secret}`, entityType: "t", observations: Array.from({ length: 1001 }, (_, i) => `o${i}`) }] } })) as CallToolResult;
        expect(bound.isError).toBe(true);
        // The caller's flags say "not sampled": the service traces it all the same.
        await client.callTool({ name: "whoami", arguments: {}, _meta: { traceparent: `00-${unsampledTrace}-${randomBytes(8).toString("hex")}-00` } });
      } finally {
        await client.close();
      }
      // A console page naming a scope and a fact, with a query.
      await fetch(mcpUrl.replace(/\/mcp$/, `/console/facts/shared/fact-${secret}?q=${secret}`));
      // A request id of 900 KB (its first 64 characters are recorded).
      await whoamiWithId(mcpUrl, token, `id-${"x".repeat(100)}-${secret}-${"x".repeat(900_000)}`);

      const unregistered = await until("the unregistered tool's span", () => receiver.spans.find((s) => s.service === "am-bounded" && s.name === "tools/call (unregistered)"));
      expect(unregistered.attrs["gen_ai.tool.name"]).toBe("(unregistered)");
      await until("the unsampled caller's call", () => receiver.spans.find((s) => s.traceId === unsampledTrace && s.name === "tools/call whoami"));
      const page = await until("the console page's span", () => receiver.spans.find((s) => s.service === "am-bounded" && s.kind === SPAN_KIND_SERVER && s.attrs["http.request.method"] === "GET" && s.attrs["url.path"] !== "/mcp"));
      // The route's template (here the console's sign-in redirect, mounted at /console), never the path sent.
      expect(page.attrs["url.path"]).toBe(page.attrs["http.route"] ?? "(no route)");
      expect(page.attrs["url.query"]).toBeUndefined();
      const failed = await until("the failed statement's span", () => receiver.spans.find((s) => s.service === "am-bounded" && s.attrs["db.system.name"] === "postgresql" && s.status?.code === 2));
      expect(failed.attrs["error.type"]).toMatch(/^[0-9A-Z]{5}$/);
      const longId = await until("the long id's span", () => receiver.spans.find((s) => s.service === "am-bounded" && s.name === "tools/call whoami" && String(s.attrs["jsonrpc.request.id"] ?? "").startsWith("id-")));
      expect(String(longId.attrs["jsonrpc.request.id"]).length).toBeLessThanOrEqual(65);
    } finally {
      await stopServe(on);
    }
    const exported = receiver.bodies.slice(sent).join("\n");
    expect(exported).not.toContain(secret);
    expect(exported.length).toBeLessThan(2_000_000);
  });

  it("keeps its memory bounded while a caller sends 900 KB ids and the collector stalls", async () => {
    const stalled = await startStalledReceiver();
    const on = startServe({
      // A heap far smaller than what 400 recorded ids would hold (360 MB): a span
      // that kept what the caller sent would end the process out of memory.
      NODE_OPTIONS: "--max-old-space-size=192",
      DATABASE_URL: tdb.url!,
      FIRST_START_OWNER: "false",
      LOG_LEVEL: "error",
      OTEL_EXPORTER_OTLP_ENDPOINT: stalled.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_SERVICE_NAME: "am-stalled",
    });
    try {
      const mcpUrl = await on.ready;
      const pid = on.child.pid!;
      const id = "i".repeat(900_000);
      for (let i = 0; i < 20; i++) await whoamiWithId(mcpUrl, token, `${i}`);
      const before = await rssMb(pid);
      let next = 0;
      const worker = async () => {
        while (next < 400) {
          next++;
          await whoamiWithId(mcpUrl, token, `${next}-${id}`);
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      const after = await rssMb(pid);
      expect(stalled.requests()).toBeGreaterThan(0);
      expect(on.child.exitCode).toBeNull();
      // Garbage of the requests (their bodies and answers) comes and goes; what spans hold stays small.
      expect(after - before, `RSS ${Math.round(before)} MB → ${Math.round(after)} MB`).toBeLessThan(250);
    } finally {
      // Killed: a stop would wait for the stalled export (the exporter's timeouts) to give up.
      on.child.kill("SIGKILL");
      await on.exited;
      stalled.server.closeAllConnections();
      stalled.server.close();
    }
  });
});
