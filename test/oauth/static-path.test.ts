// Turning OAuth on must not change what a static-token client sees on /mcp:
// clients that find OAuth discovery stop sending their configured header. The
// same requests go to a service without OAuth and one with it (same database)
// and the answers are compared.
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, startTestService, type TestAgent } from "../support/service.js";
import { probeMcp, startOAuthService, type OAuthService } from "./support.js";
import type { RunningService } from "../../src/serve.js";

let tdb: TestDatabase;
let plain: RunningService;
let withOAuth: OAuthService;
let agent: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  plain = await startTestService(tdb.openPool(2));
  withOAuth = await startOAuthService(tdb.openPool(2));
  agent = await addAgent(tdb.db, "static-agent");
});

const VOLATILE_HEADERS = new Set(["date", "x-request-id", "content-length", "etag", "keep-alive", "connection"]);

async function snapshot(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const headers: string[][] = [];
  response.headers.forEach((value, key) => {
    if (!VOLATILE_HEADERS.has(key)) headers.push([key, value]);
  });
  headers.sort((x, y) => x[0]!.localeCompare(y[0]!));
  return { status: response.status, headers, body: await response.text() };
}

describe("static tokens on /mcp with OAuth on", () => {
  it("answers exactly as without OAuth: no token, a bad token, a good token", async () => {
    for (const token of [undefined, "amk_wrongwrongwrongwrongwrongwrongwrongwrongwro", agent.token]) {
      const init: RequestInit = {
        method: "POST",
        headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "static", version: "1" } } }),
      };
      const before = await snapshot(`${plain.url}/mcp`, init);
      const after = await snapshot(`${withOAuth.base}/mcp`, init);
      expect(after).toEqual(before);
      expect(JSON.stringify(after.headers)).not.toContain("resource_metadata");
    }
  });

  it("serves no protected-resource metadata for /mcp or the root", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      expect((await fetch(`${withOAuth.base}${path}`)).status).toBe(404);
      expect((await fetch(`${plain.url}${path}`)).status).toBe(404);
    }
  });

  it("announces OAuth only on /oauth/mcp, with metadata that points at this server", async () => {
    const probe = await probeMcp(withOAuth.oauthUrl);
    expect(probe.status).toBe(401);
    const prmUrl = `${withOAuth.base}/.well-known/oauth-protected-resource/oauth/mcp`;
    expect(probe.wwwAuthenticate).toContain(`resource_metadata="${prmUrl}"`);
    const prm = (await (await fetch(prmUrl)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: withOAuth.oauthUrl, authorization_servers: [`${withOAuth.base}/`] });
    const as = (await (await fetch(`${withOAuth.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: `${withOAuth.base}/`,
      code_challenge_methods_supported: ["S256"],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${withOAuth.base}/register`,
      revocation_endpoint: `${withOAuth.base}/revoke`,
    });
    // A client registering as MCP 2026-07-28 asks (application_type, SEP-837) is registered with it.
    const registered = await fetch(`${withOAuth.base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:33418/callback"], token_endpoint_auth_method: "none", application_type: "native" }),
    });
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ application_type: "native", token_endpoint_auth_method: "none" });
    // The token endpoint takes POST only, and says so.
    const get = await fetch(`${withOAuth.base}/token`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, OPTIONS");
    expect(withOAuth.oauthMcpUrl).toBe(withOAuth.oauthUrl);
    expect(plain.oauthMcpUrl).toBeUndefined();
  });
});

describe("configuration", () => {
  const load = (env: Record<string, string>) => () => loadConfig(env);
  it("is off by default", () => {
    expect(loadConfig({}).oauth.mode).toBe("off");
  });
  it("needs PUBLIC_URL, https unless loopback, and no path", () => {
    expect(load({ OAUTH_MODE: "builtin" })).toThrow(/OAUTH_MODE=builtin needs PUBLIC_URL: it is empty/);
    expect(load({ OAUTH_MODE: "builtin", PUBLIC_URL: "http://memory.example.com" })).toThrow(/must use https \(plain http is accepted only for localhost/);
    expect(load({ OAUTH_MODE: "builtin", PUBLIC_URL: "https://memory.example.com/agent" })).toThrow(/must be an origin without a path/);
    expect(loadConfig({ OAUTH_MODE: "builtin", PUBLIC_URL: "https://memory.example.com/" }).oauth.mode).toBe("builtin");
    expect(loadConfig({ OAUTH_MODE: "builtin", PUBLIC_URL: "http://localhost:8080" }).oauth.mode).toBe("builtin");
  });
  it("external mode needs an https issuer; unknown modes are named", () => {
    expect(load({ OAUTH_MODE: "external", PUBLIC_URL: "https://m.example.com" })).toThrow(/needs OAUTH_ISSUER/);
    expect(load({ OAUTH_MODE: "external", PUBLIC_URL: "https://m.example.com", OAUTH_ISSUER: "http://id.example.com" })).toThrow(ConfigError);
    expect(load({ OAUTH_MODE: "yes" })).toThrow(/OAUTH_MODE must be empty \(off\), builtin or external, got "yes"/);
  });
  it("OAUTH_HUMAN_AGENTS: only with external mode, where it lists the people a token may name", () => {
    expect(load({ OAUTH_HUMAN_AGENTS: "alice" })).toThrow(/OAUTH_HUMAN_AGENTS .* applies only with OAUTH_MODE=external \(here off\)/);
    const external = { OAUTH_MODE: "external", PUBLIC_URL: "https://m.example.com", OAUTH_ISSUER: "https://id.example.com" };
    expect(loadConfig(external).oauth.humanAgents).toEqual([]);
    expect(loadConfig({ ...external, OAUTH_HUMAN_AGENTS: " alice, bob " }).oauth.humanAgents).toEqual(["alice", "bob"]);
  });
});
