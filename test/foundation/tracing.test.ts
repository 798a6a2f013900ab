// OpenTelemetry traces from the built service as an operator runs it (the SDK
// must start before pg and express load, so the process is the point): an
// OTLP/HTTP receiver started here collects what the service exports
// (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). With tracing on, a tools/call sent
// with _meta.traceparent gives one server span in the caller's trace, named and
// attributed by the MCP conventions, with Postgres statements as its children
// and no argument or parameter value anywhere; a refused call is marked
// tool_error. With tracing off (OTEL_SDK_DISABLED), nothing is sent.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type ServeProcess } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient } from "../support/service.js";

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
    await tdb?.drop();
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

      const statements = await until("Postgres spans under the recall", () => {
        const children = receiver.spans.filter((s) => s.parentSpanId === recall.spanId && s.attrs["db.system.name"] === "postgresql");
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
});
