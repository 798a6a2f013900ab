// Authentication against a real service process. Different clients are
// different loopback addresses (127.0.0.2, 127.0.0.3, …: all local on Linux), so
// the per-address limit on failed attempts is exercised as it works in
// production, without trusting any header.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, issueToken, revokeToken, setAgentDisabled } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callToolOk, MCP_HEADERS, rawRequest, type Replica, startReplica, stopAllReplicas, toolCall } from "./support.js";

const FAILURES_PER_MINUTE = 5;
const METRICS_TOKEN = "metrics-secret-7f3a9c-0123456789abcdef";

let tdb: TestDatabase;
/** AUTH_FAILURES_PER_MINUTE=5 and METRICS_TOKEN set. */
let guarded: Replica;
/** No failure limit, for comparing many rejections from one address. */
let open: Replica;
let agent: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres", { poolMax: 2 });
  agent = await addAgent(tdb.db, "writer");
  [guarded, open] = await Promise.all([
    startReplica(tdb.url!, { AUTH_FAILURES_PER_MINUTE: String(FAILURES_PER_MINUTE), METRICS_TOKEN }),
    startReplica(tdb.url!, { AUTH_FAILURES_PER_MINUTE: "0" }),
  ]);
});
afterAll(async () => {
  await stopAllReplicas();
});

const body = JSON.stringify(toolCall("whoami", {}));
const unknownToken = () => `amk_${"A".repeat(43)}`;

function attempt(replica: Replica, token: string | undefined, from: string, extraHeaders: Record<string, string> = {}) {
  const headers: Record<string, string> = { ...MCP_HEADERS, ...extraHeaders };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  return rawRequest(replica.url, "/mcp", { headers, body, localAddress: from });
}

describe("brute force is limited per client address", () => {
  it("the sixth failure in a minute from one address is refused with 429; only failures are refused from then on", async () => {
    const from = "127.0.0.2";
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await attempt(guarded, unknownToken(), from)).status).toBe(401);
    const blocked = await attempt(guarded, unknownToken(), from);
    expect(blocked.status).toBe(429);
    expect(JSON.parse(blocked.body)).toMatchObject({ error: { message: expect.stringMatching(/Too many failed authentication attempts/) } });
    expect(blocked.headers["ratelimit-policy"] ?? blocked.headers.ratelimit).toBeDefined();
    // Further guesses wait out the window, whatever kind of bad token they carry…
    expect((await attempt(guarded, undefined, from)).status).toBe(429);
    expect((await attempt(guarded, "not-even-a-token", from)).status).toBe(429);
    // …but a working agent behind the same address, never seen from it before, is not locked out.
    expect((await attempt(guarded, agent.token, from)).status).toBe(200);
  });

  it("spoofed X-Forwarded-For headers do not escape the limit (no proxy is trusted by default)", async () => {
    const from = "127.0.0.3";
    const statuses: Array<number | "reset"> = [];
    for (let i = 0; i < FAILURES_PER_MINUTE + 3; i++) {
      statuses.push((await attempt(guarded, unknownToken(), from, { "X-Forwarded-For": `10.0.${i}.1`, "X-Real-IP": `10.1.${i}.1` })).status);
    }
    expect(statuses).toEqual([...Array(FAILURES_PER_MINUTE).fill(401), 429, 429, 429]);
  });

  it("other addresses are unaffected, and successful calls never count towards the limit", async () => {
    const from = "127.0.0.4";
    for (let i = 0; i < 3 * FAILURES_PER_MINUTE; i++) expect((await attempt(guarded, agent.token, from)).status).toBe(200);
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await attempt(guarded, unknownToken(), from)).status).toBe(401);
    expect((await attempt(guarded, unknownToken(), from)).status).toBe(429);
    // Meanwhile yet another client is served normally.
    expect((await attempt(guarded, agent.token, "127.0.0.5")).status).toBe(200);
  });
});

describe("tokens and agent names reveal nothing", () => {
  it("only a sha256 of each token is stored; the secret appears nowhere in the database", async () => {
    const rows = await tdb.db.query<{ token_hash: string }>("select t.token_hash from agent_tokens t join agents a on a.id = t.agent_id where a.name = 'writer'");
    expect(rows.rows).toEqual([{ token_hash: createHash("sha256").update(agent.token).digest("hex") }]);
    const everything = await tdb.db.query<{ dump: string }>(
      "select concat_ws('|', (select string_agg(t::text, '|') from agent_tokens t), (select string_agg(a::text, '|') from agents a)) as dump",
    );
    expect(everything.rows[0]!.dump).not.toContain(agent.token.slice(4));
  });

  it("every kind of bad token gets the same 401, which names no agent", async () => {
    await createAgent(tdb.db, { name: "disabled-agent", kind: "agent", writeScopes: ["shared"] });
    const ofDisabled = (await issueToken(tdb.db, "disabled-agent", null)).token;
    await setAgentDisabled(tdb.db, "disabled-agent", true);
    const revoked = await issueToken(tdb.db, "writer", null);
    await revokeToken(tdb.db, revoked.record.id);
    const expired = await issueToken(tdb.db, "writer", new Date(Date.now() + 60_000));
    await tdb.db.query("update agent_tokens set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where id = $1", [expired.record.id]);
    // One character off a real token: looked up by hash, it is simply unknown.
    const lastChar = agent.token.at(-1) === "A" ? "B" : "A";
    const nearMiss = agent.token.slice(0, -1) + lastChar;

    const answers = await Promise.all(
      [unknownToken(), nearMiss, revoked.token, expired.token, ofDisabled].map((token) => attempt(open, token, "127.0.0.6")),
    );
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body).not.toMatch(/writer|disabled-agent/);
    }
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(new Set(answers.map((a) => String(a.headers["www-authenticate"]))).size).toBe(1);
  });

  it("filtering by an agent that exists (but whose facts the caller cannot see) answers exactly like a name that does not", async () => {
    const secret = await addAgent(tdb.db, "secret-agent", { scopes: ["secret"] });
    await callToolOk(open.mcpUrl, secret.token, "memory_store", { name: "hidden-plan", description: "d", type: "project", body: "b", scope: "secret" });
    const asked = async (author: string) => {
      const res = await rawRequest(open.url, "/mcp", {
        headers: { ...MCP_HEADERS, Authorization: `Bearer ${agent.token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory_list", arguments: { author } } }),
      });
      return res.body.replaceAll(author, "<name>");
    };
    expect(await asked("secret-agent")).toBe(await asked("no-such-agent"));
  });
});

describe("/metrics is protected by its own token", () => {
  it("refuses no token, a wrong one and an agent's token; accepts METRICS_TOKEN; never lists agents", async () => {
    const get = (authorization?: string) =>
      rawRequest(guarded.url, "/metrics", { method: "GET", headers: authorization ? { Authorization: authorization } : {}, localAddress: "127.0.0.7" });
    const refused = await Promise.all([get(), get("Bearer wrong"), get(`Bearer ${agent.token}`), get(METRICS_TOKEN)]);
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(r.body).not.toContain("agent_memory_");
    }
    const ok = await get(`Bearer ${METRICS_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatch(/agent_memory_auth_failures_total\{reason="invalid"\} [1-9]/);
    expect(ok.body).not.toMatch(/reason="(unknown|revoked|expired|malformed|agent_disabled)"/);
    expect(ok.body).toMatch(/agent_memory_rate_limited_total\{limit="auth_failures"\} [1-9]/);
    expect(ok.body).not.toMatch(/writer|secret-agent|disabled-agent/);
  });

  it("health and readiness say nothing about agents", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const r = await rawRequest(guarded.url, path, { method: "GET", localAddress: "127.0.0.7" });
      expect(r.status).toBe(200);
      expect(Object.keys(JSON.parse(r.body) as object).sort()).toEqual(path === "/healthz" ? ["status"] : ["database", "status"]);
    }
  });
});
