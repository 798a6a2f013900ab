// The HTTP edge with supertest: authentication, transport rules, limits, ops.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, issueToken, revokeToken, setAgentDisabled } from "../../src/auth/store.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { createTestDatabase, TEST_TIMEOUTS, type TestDatabase } from "../support/databases.js";
import { createTestApp, MCP_HEADERS, toolCallBody } from "../support/service.js";

let tdb: TestDatabase;
let token: string;
const METRICS_SECRET = "metrics-secret-0123456789abcdef0123456789";

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
  token = (await issueToken(tdb.db, "writer", null)).token;
});

const whoami = () => toolCallBody("whoami");

describe("authentication on POST /mcp", () => {
  it("a valid token reaches whoami with the right identity", async () => {
    const { app } = await createTestApp(tdb.db);
    const res = await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami());
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent).toMatchObject({ name: "writer", kind: "agent" });
    expect(res.headers["x-request-id"]).toBeTruthy();
  });

  it("answers every bad credential with the same 401 and WWW-Authenticate, revealing nothing", async () => {
    const { app, deps } = await createTestApp(tdb.db);
    const revoked = await issueToken(tdb.db, "writer", null);
    await revokeToken(tdb.db, revoked.record.id);
    const expired = await issueToken(tdb.db, "writer", new Date(Date.now() + 60_000));
    await tdb.db.query("update agent_tokens set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where id = $1", [expired.record.id]);
    await createAgent(tdb.db, { name: "gone", kind: "agent", writeScopes: ["shared"] });
    const disabled = await issueToken(tdb.db, "gone", null);
    await setAgentDisabled(tdb.db, "gone", true);

    const cases: Array<[string, string | undefined]> = [
      ["missing", undefined],
      ["malformed", "Bearer not-a-token"],
      ["unknown", `Bearer amk_${"x".repeat(43)}`],
      ["revoked", `Bearer ${revoked.token}`],
      ["expired", `Bearer ${expired.token}`],
      ["agent_disabled", `Bearer ${disabled.token}`],
      ["wrong scheme", `Basic ${token}`],
    ];
    const bodies = new Set<string>();
    for (const [label, header] of cases) {
      const req = request(app).post("/mcp").set(MCP_HEADERS);
      if (header) req.set("Authorization", header);
      const res = await req.send(whoami());
      expect(res.status, label).toBe(401);
      expect(res.headers["www-authenticate"], label).toMatch(/^Bearer error="invalid_token"/);
      expect(JSON.stringify(res.body)).not.toMatch(/writer|gone/);
      if (!["missing", "wrong scheme"].includes(label)) bodies.add(JSON.stringify(res.body));
    }
    // Unknown, revoked, expired and disabled are indistinguishable to the caller.
    expect(bodies.size).toBe(1);
    // Metrics are as coarse as the answers: missing or invalid, never revoked vs unknown.
    const metrics = await deps.metrics.registry.getSingleMetricAsString("agent_memory_auth_failures_total");
    expect(metrics).toMatch(/reason="missing"\} 2/);
    expect(metrics).toMatch(/reason="invalid"\} 5/);
    for (const reason of ["malformed", "unknown", "revoked", "expired", "agent_disabled"]) expect(metrics).not.toContain(`reason="${reason}"`);
  });

  it("a request without Authorization is told what to send and where a token comes from", async () => {
    const { app } = await createTestApp(tdb.db);
    const res = await request(app).post("/mcp").set(MCP_HEADERS).send(whoami());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: "invalid_token",
      error_description:
        'Missing Authorization header: send "Authorization: Bearer amk_…" with your agent\'s token. An administrator issues one in the web console (Agents) or with: agent-memory token issue NAME.',
    });
  });

  it("a call of a tool that does not exist names the closest ones", async () => {
    const { app } = await createTestApp(tdb.db);
    const call = async (name: string) =>
      (await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(toolCallBody(name))).body.result as { isError: boolean; content: Array<{ text: string }> };
    const recall = await call("recall");
    expect(recall.isError).toBe(true);
    expect(recall.content[0]!.text).toMatch(/^Tool "recall" not found\. Did you mean memory_recall\? This server's tools: add_observations, create_entities, .*whoami \(tools\/list describes each\)\.$/);
    expect((await call("createEntities")).content[0]!.text).toContain("Did you mean create_entities?");
    expect((await call("zzz")).content[0]!.text).toMatch(/^Tool "zzz" not found\. This server's tools: /);
  });

  it("counts console pages and OAuth endpoints under their own route labels in /metrics", async () => {
    const { app, deps } = await createTestApp(tdb.db);
    await request(app).get("/console/sign-in");
    await request(app).get("/console/facts");
    await request(app).get("/no-such-path");
    const metrics = await deps.metrics.registry.getSingleMetricAsString("agent_memory_http_requests_total");
    expect(metrics).toMatch(/route="\/console",status="200"\} 1/);
    expect(metrics).toMatch(/route="\/console",status="30\d"\} 1/);
    expect(metrics).toMatch(/route="other",status="404"\} 1/);
  });

  it("over the failed-attempt limit, a valid token never used from that address still passes; only bad ones get 429", async () => {
    const { app, deps } = await createTestApp(tdb.db, { AUTH_FAILURES_PER_MINUTE: "30" });
    const neverUsed = (await issueToken(tdb.db, "writer", null)).token;
    const revoked = await issueToken(tdb.db, "writer", null);
    await revokeToken(tdb.db, revoked.record.id);
    const call = (t: string) => request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${t}`).send(whoami());
    for (let i = 0; i < 30; i++) expect((await call(`amk_${"y".repeat(43)}`)).status).toBe(401);
    const blocked = await call(`amk_${"z".repeat(43)}`);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.message).toMatch(/Too many failed authentication attempts/);
    // A working agent at the same address (a NAT, a proxy) is not locked out by someone else's guesses…
    const ok = await call(neverUsed);
    expect(ok.status).toBe(200);
    expect(ok.body.result.structuredContent).toMatchObject({ name: "writer" });
    expect(ok.headers["retry-after"]).toBeUndefined();
    // …while every kind of invalid token gets the same 429 (revoked looks like unknown).
    const refusedRevoked = await call(revoked.token);
    expect(refusedRevoked.status).toBe(429);
    expect(refusedRevoked.body).toEqual(blocked.body);
    expect((await request(app).post("/mcp").set(MCP_HEADERS).send(whoami())).status).toBe(429);
    expect(await deps.metrics.registry.getSingleMetricAsString("agent_memory_rate_limited_total")).toMatch(/limit="auth_failures"\} 3/);
  });

  it("successful calls do not count towards the failure limit", async () => {
    const { app } = await createTestApp(tdb.db, { AUTH_FAILURES_PER_MINUTE: "2" });
    for (let i = 0; i < 5; i++) {
      const res = await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami());
      expect(res.status).toBe(200);
    }
  });

  it("limits calls per token when RATE_LIMIT_PER_MINUTE is set", async () => {
    const { app } = await createTestApp(tdb.db, { RATE_LIMIT_PER_MINUTE: "2" });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami())).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe("transport rules", () => {
  // Returns a function: a supertest request is a thenable and would run if awaited.
  const post = async (env: Record<string, string> = {}) => {
    const { app } = await createTestApp(tdb.db, env);
    return () => request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`);
  };

  it("answers GET and DELETE with 405", async () => {
    const { app } = await createTestApp(tdb.db);
    for (const method of ["get", "delete"] as const) {
      const res = await request(app)[method]("/mcp").set("Authorization", `Bearer ${token}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("POST");
      expect(res.body.jsonrpc).toBe("2.0");
    }
  });

  it("refuses a foreign Host header on a localhost bind (DNS rebinding)", async () => {
    const res = await (await post())().set("Host", "evil.example:8080").send(whoami());
    expect(res.status).toBe(403);
    const ok = await (await post())().set("Host", "localhost:8080").send(whoami());
    expect(ok.status).toBe(200);
  });

  it("refuses a present but disallowed Origin with 403 and accepts allowed ones", async () => {
    const denied = await (await post())().set("Origin", "https://evil.example").send(whoami());
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toMatch(/ALLOWED_ORIGINS/);
    const allowed = await (await post({ ALLOWED_ORIGINS: "https://app.example" }))().set("Origin", "https://app.example").send(whoami());
    expect(allowed.status).toBe(200);
  });

  it("serves the service's own origin: the Host it was reached by where the Host is checked, PUBLIC_URL's everywhere", async () => {
    const own = await (await post())().set("Host", "localhost:8080").set("Origin", "http://localhost:8080").send(whoami());
    expect(own.status).toBe(200);
    const otherPort = await (await post())().set("Host", "localhost:8080").set("Origin", "http://localhost:9999").send(whoami());
    expect(otherPort.status).toBe(403);
    const rebound = await (await post())().set("Host", "evil.example:8080").set("Origin", "http://evil.example:8080").send(whoami());
    expect(rebound.status).toBe(403);
    // Bound to every interface without ALLOWED_HOSTS, any Host is accepted, so a matching Origin proves nothing.
    const open = { HOST: "0.0.0.0", PUBLIC_URL: "https://memory.example" };
    const unchecked = await (await post(open))().set("Host", "evil.example").set("Origin", "http://evil.example").send(whoami());
    expect(unchecked.status).toBe(403);
    const publicOrigin = await (await post(open))().set("Host", "memory.example").set("Origin", "https://memory.example").send(whoami());
    expect(publicOrigin.status).toBe(200);
  });

  it("answers CORS preflight and exposes MCP headers for allowed origins only", async () => {
    const { app } = await createTestApp(tdb.db, { ALLOWED_ORIGINS: "https://app.example" });
    const preflight = await request(app)
      .options("/mcp")
      .set("Origin", "https://app.example")
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version");
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("https://app.example");
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Authorization/);
    const call = await request(app).post("/mcp").set(MCP_HEADERS).set("Origin", "https://app.example").set("Authorization", `Bearer ${token}`).send(whoami());
    expect(call.status).toBe(200);
    expect(call.headers["access-control-expose-headers"]).toMatch(/Mcp-Session-Id/);
    const foreign = await request(app).options("/mcp").set("Origin", "https://evil.example").set("Access-Control-Request-Method", "POST");
    expect(foreign.status).toBe(403);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("answers an oversized body with a JSON-RPC error, not an HTML page", async () => {
    const big = toolCallBody("whoami", { padding: "x".repeat(3000) });
    const res = await (await post({ MAX_BODY_BYTES: "2048" }))().send(big);
    expect(res.status).toBe(413);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(res.body.error.message).toMatch(/2048-byte limit/);
  });

  it("answers malformed JSON with a JSON-RPC parse error", async () => {
    const res = await (await post())().set("Content-Type", "application/json").send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });

  it("refuses JSON-RPC batches, so one request cannot run many tool calls at once", async () => {
    const res = await (await post())().send([toolCallBody("whoami", {}, 1), toolCallBody("whoami", {}, 2)]);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/Batch requests are not supported/);
  });

  it("requires the Accept header of Streamable HTTP", async () => {
    const { app } = await createTestApp(tdb.db);
    const res = await request(app).post("/mcp").set("Content-Type", "application/json").set("Accept", "text/html").set("Authorization", `Bearer ${token}`).send(whoami());
    expect(res.status).toBe(406);
  });

  it("never writes the token or the Authorization header to the log", async () => {
    const { app, logLines } = await createTestApp(tdb.db);
    await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami());
    await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", "Bearer amk_leakcheckleakcheckleakcheckleakcheckleakche").send(whoami());
    const all = logLines.join("\n");
    expect(logLines.length).toBeGreaterThan(0);
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.slice(4, 20));
    expect(all).not.toContain("leakcheck");
    expect(all.toLowerCase()).not.toContain("authorization");
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.agent === "writer");
    expect(line).toMatchObject({ agent: "writer", tools: ["whoami"], outcome: "ok", res: { statusCode: 200 } });
    expect(line.req.id).toBeTruthy();
    expect(typeof line.responseTime).toBe("number");
  });
});

describe("ops endpoints", () => {
  it("/healthz and /readyz answer 200 when the database is up", async () => {
    const { app } = await createTestApp(tdb.db);
    expect((await request(app).get("/healthz")).body).toEqual({ status: "ok" });
    const ready = await request(app).get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready", database: "postgres" });
  });

  it("/readyz answers 503 with a reason when the database is unreachable", async () => {
    const unreachable = openPostgres({ ...TEST_TIMEOUTS, connectionString: "postgres://postgres@127.0.0.1:1/none", poolMax: 1, connectTimeoutMs: 500 });
    try {
      const { app } = await createTestApp(unreachable);
      const res = await request(app).get("/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unavailable", reason: "database unreachable" });
      expect((await request(app).get("/healthz")).status).toBe(200);
      // A tool call during the outage is refused clearly and retryably, not hung.
      const call = await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami());
      expect(call.status).toBe(503);
      // The body is not read before the token is checked: the answer cannot name the request id.
      expect(call.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringMatching(/unreachable.*retry/), data: { retryable: true } } });
      expect(call.headers["retry-after"]).toBe("2");
    } finally {
      await unreachable.close();
    }
  });

  it("/readyz answers 503 while migrations are missing", async () => {
    const { app, deps } = await createTestApp(tdb.db);
    deps.expectedMigrations += 1;
    const res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.reason).toMatch(/1 database migration/);
  });

  it("/metrics counts tool calls by tool and outcome, with latency and pool gauges", async () => {
    const { app } = await createTestApp(tdb.db);
    await request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${token}`).send(whoami());
    const res = await request(app).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/plain/);
    expect(res.text).toMatch(/agent_memory_tool_calls_total\{tool="whoami",outcome="ok"\} 1/);
    expect(res.text).toMatch(/agent_memory_tool_duration_seconds_bucket\{le="[^"]+",tool="whoami"\}/);
    expect(res.text).toMatch(/agent_memory_db_pool_connections\{state="max"\} 10/);
    expect(res.text).toMatch(/agent_memory_process_resident_memory_bytes/);
  });

  it("/metrics can require its own token", async () => {
    const { app } = await createTestApp(tdb.db, { METRICS_TOKEN: METRICS_SECRET });
    expect((await request(app).get("/metrics")).status).toBe(401);
    expect((await request(app).get("/metrics").set("Authorization", `Bearer ${token}`)).status).toBe(401);
    expect((await request(app).get("/metrics").set("Authorization", `Bearer ${METRICS_SECRET}`)).status).toBe(200);
  });

  it("/metrics guesses are throttled by the failed-auth limiter; the right token still passes; reasons stay coarse", async () => {
    const { app, deps } = await createTestApp(tdb.db, { METRICS_TOKEN: METRICS_SECRET, AUTH_FAILURES_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) expect((await request(app).get("/metrics").set("Authorization", `Bearer guess-${i}`)).status).toBe(401);
    const blocked = await request(app).get("/metrics").set("Authorization", "Bearer guess-4");
    expect(blocked.status).toBe(429);
    expect(blocked.body.error_description).toMatch(/Too many failed authentication attempts/);
    expect(blocked.headers.connection).toBe("close");
    expect((await request(app).get("/metrics").set("Authorization", `Bearer ${METRICS_SECRET}`)).status).toBe(200);
    const failures = await deps.metrics.registry.getSingleMetricAsString("agent_memory_auth_failures_total");
    expect(failures).toMatch(/reason="invalid"\} 3/);
  });

  it("answers unknown paths with a JSON 404", async () => {
    const { app } = await createTestApp(tdb.db);
    const res = await request(app).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("not_found");
  });
});
