// OAUTH_MODE=external: a real issuer runs inside the test (its own RSA key,
// JWKS and OpenID metadata served over HTTP, tokens signed with jose), and the
// service verifies those tokens as it would Keycloak's or Auth0's. Nothing of
// the verification is mocked.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAgentDisabled } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient } from "../support/service.js";
import { probeMcp, startOAuthService, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let issuerServer: Server;
let issuer: string;
let signingKey: CryptoKey;
let foreignKey: CryptoKey;
let jwksFetches = 0;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  const pair = await generateKeyPair("RS256");
  signingKey = pair.privateKey;
  foreignKey = (await generateKeyPair("RS256")).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  issuerServer = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks.json` }));
    if (req.url === "/jwks.json") {
      jwksFetches += 1;
      return res.end(JSON.stringify({ keys: [jwk] }));
    }
    res.writeHead(404).end("{}");
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  service = await startOAuthService(tdb.openPool(3), { OAUTH_MODE: "external", OAUTH_ISSUER: issuer, OAUTH_AGENT_CLAIM: "agent_name" });
  await addAgent(tdb.db, "deployer", { scopes: ["deploy"] });
  await addAgent(tdb.db, "retired");
  await setAgentDisabled(tdb.db, "retired", true);
});

afterAll(async () => {
  issuerServer?.close();
});

function jwt(claims: Record<string, unknown>, options: { key?: CryptoKey; audience?: string; issuer?: string; expiresIn?: string | number } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(options.issuer ?? issuer)
    .setAudience(options.audience ?? service.oauthUrl)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "5m")
    .sign(options.key ?? signingKey);
}

describe("tokens from an external identity provider", () => {
  it("announces the external issuer and serves no authorization server of its own", async () => {
    const probe = await probeMcp(service.oauthUrl);
    expect(probe.status).toBe(401);
    expect(probe.wwwAuthenticate).toContain(`resource_metadata="${service.base}/.well-known/oauth-protected-resource/oauth/mcp"`);
    const prm = (await (await fetch(`${service.base}/.well-known/oauth-protected-resource/oauth/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: service.oauthUrl, authorization_servers: [issuer] });
    for (const path of ["/.well-known/oauth-authorization-server", "/register", "/authorize"]) {
      expect((await fetch(`${service.base}${path}`, { method: path === "/register" ? "POST" : "GET" })).status, path).toBe(404);
    }
  });

  it("maps the configured claim to the agent: calls are that agent's", async () => {
    const client = await connectClient(service.oauthUrl, await jwt({ agent_name: "deployer", sub: "user-123" }));
    expect(await callOk<{ name: string; writeScopes: string[] }>(client, "whoami")).toMatchObject({ name: "deployer", writeScopes: ["deploy"] });
    await client.close();
    expect(jwksFetches).toBe(1);
  });

  it("is the agent as its own token makes it: a withdrawal notice reaches it once at its next recall", async () => {
    const writer = await connectClient(service.oauthUrl.replace(/\/oauth\/mcp$/, "/mcp"), (await addAgent(tdb.db, "runbook-writer", { scopes: ["deploy"] })).token);
    const person = await connectClient(service.oauthUrl.replace(/\/oauth\/mcp$/, "/mcp"), (await addAgent(tdb.db, "runbook-owner", { kind: "human", scopes: ["deploy"] })).token);
    await callOk(writer, "memory_store", { name: "rollback-steps", scope: "deploy", type: "reference", description: "How to roll a release back", body: "Revert the tag, then redeploy the previous build." });
    const deployer = await connectClient(service.oauthUrl, await jwt({ agent_name: "deployer" }));
    const recall = async () => (await deployer.callTool({ name: "memory_recall", arguments: { keywords: ["rollback"] } })).structuredContent as { hits: unknown[]; withdrawn?: string[] };
    expect((await recall()).hits).toHaveLength(1);
    await service.deps.receipts.flush();
    const deprecated = await callOk<{ readersTold?: string[] }>(person, "memory_promote", { name: "rollback-steps", scope: "deploy", to: "deprecated", reason: "the pipeline rolls back by itself now" });
    expect(deprecated.readersTold).toEqual({ names: ["deployer"], total: 1 });
    expect((await recall()).withdrawn).toEqual([expect.stringMatching(/deploy\/rollback-steps \(version 1\), was withdrawn: the pipeline rolls back by itself now/)]);
    expect((await recall()).withdrawn).toBeUndefined();
    for (const client of [writer, person, deployer]) await client.close();
  });

  it.each([
    ["another audience", () => jwt({ agent_name: "deployer" }, { audience: "https://other.example/mcp" }), "wrong audience"],
    ["another issuer", () => jwt({ agent_name: "deployer" }, { issuer: "https://evil.example" }), "wrong issuer"],
    ["an expired token", () => jwt({ agent_name: "deployer" }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), "expired"],
    ["a key not in the issuer's JWKS", () => jwt({ agent_name: "deployer" }, { key: foreignKey }), "bad signature or format"],
    ["an unknown agent", () => jwt({ agent_name: "nobody" }), "unknown agent"],
    ["a disabled agent", () => jwt({ agent_name: "retired" }), "agent disabled"],
    ["no agent claim", () => jwt({ sub: "user-123" }), "no agent claim"],
  ])("refuses %s with 401", async (_what, make, reason) => {
    const probe = await probeMcp(service.oauthUrl, await make());
    expect(probe.status).toBe(401);
    expect(probe.body).toContain(`(${reason})`);
  });

  it("counts every refusal on /metrics as reason missing or invalid, never the finer reason the caller was told", async () => {
    await probeMcp(service.oauthUrl, await jwt({ agent_name: "nobody" }));
    const metrics = await (await fetch(`${service.base}/metrics`)).text();
    const reasons = [...metrics.matchAll(/^agent_memory_auth_failures_total\{reason="([^"]+)"\} (\d+)/gm)].map((m) => m[1]);
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.every((r) => r === "missing" || r === "invalid"), reasons.join(", ")).toBe(true);
    expect(metrics).toMatch(/^agent_memory_auth_failures_total\{reason="invalid"\} [1-9]/m);
  });

  it("refuses a static agent token on /oauth/mcp, which still works on /mcp", async () => {
    const agent = await addAgent(tdb.db, "static-one");
    expect((await probeMcp(service.oauthUrl, agent.token)).status).toBe(401);
    expect((await probeMcp(`${service.base}/mcp`, agent.token)).status).toBe(200);
  });
});

describe("the failed-attempt limit on /oauth/mcp", () => {
  let limited: OAuthService;
  beforeAll(async () => {
    limited = await startOAuthService(tdb.openPool(2), {
      OAUTH_MODE: "external",
      OAUTH_ISSUER: issuer,
      OAUTH_AGENT_CLAIM: "agent_name",
      AUTH_FAILURES_PER_MINUTE: "3",
    });
  });

  it("over the limit, refuses bad tokens with 429 but lets the identity provider's valid JWTs through", async () => {
    const good = () =>
      new SignJWT({ agent_name: "deployer" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(issuer)
        .setAudience(limited.oauthUrl)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(signingKey);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await probeMcp(limited.oauthUrl, `not-a-jwt-${i}`)).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    // Checked with /oauth/mcp's own verifier, not /mcp's agent-token lookup.
    expect((await probeMcp(limited.oauthUrl, await good())).status).toBe(200);
    expect((await probeMcp(limited.oauthUrl, "still-not-a-jwt")).status).toBe(429);
  });
});

// Callers with an identity provider's JWT have no token row (tokenId 0): the
// per-token rate limit keys them by agent (src/mcp-endpoint/auth.ts perTokenLimit), or
// one IdP agent would use up the allowance of every other IdP agent.
describe("RATE_LIMIT_PER_MINUTE for identity-provider callers", () => {
  let limited: OAuthService;
  beforeAll(async () => {
    limited = await startOAuthService(tdb.openPool(2), {
      OAUTH_MODE: "external",
      OAUTH_ISSUER: issuer,
      OAUTH_AGENT_CLAIM: "agent_name",
      RATE_LIMIT_PER_MINUTE: "3",
    });
    await addAgent(tdb.db, "idp-busy");
    await addAgent(tdb.db, "idp-quiet");
  });

  const signed = (agent: string, sub: string) =>
    new SignJWT({ agent_name: agent, sub })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience(limited.oauthUrl)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(signingKey);

  it("one agent using up its allowance leaves another agent's untouched", async () => {
    const busy = await signed("idp-busy", "user-1");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await probeMcp(limited.oauthUrl, busy)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The bucket is the agent's, not the JWT's: a fresh token of the same agent is refused too.
    expect((await probeMcp(limited.oauthUrl, await signed("idp-busy", "user-2"))).status).toBe(429);
    // Another agent of the same identity provider still gets through, each of its three calls.
    const quiet = await signed("idp-quiet", "user-3");
    for (let i = 0; i < 3; i += 1) expect((await probeMcp(limited.oauthUrl, quiet)).status, `call ${i + 1}`).toBe(200);
    const metrics = await limited.deps.metrics.registry.getSingleMetricAsString("agent_memory_rate_limited_total");
    expect(metrics).toMatch(/limit="per_token"\} 2/);
  });
});

// A claim naming a person would hand the identity provider's client the person's
// own powers (an admin writes every scope and confirms facts in their name): only
// agents of kind agent, unless the operator lists the person in OAUTH_HUMAN_AGENTS.
describe("identity-provider tokens naming a person", () => {
  let mapped: OAuthService;
  beforeAll(async () => {
    await addAgent(tdb.db, "admin", { kind: "human", scopes: ["*"] });
    await addAgent(tdb.db, "carol", { kind: "human", scopes: ["shared"] });
    mapped = await startOAuthService(tdb.openPool(2), { OAUTH_MODE: "external", OAUTH_ISSUER: issuer, OAUTH_AGENT_CLAIM: "agent_name", OAUTH_HUMAN_AGENTS: "carol" });
  });

  const signedFor = (svc: OAuthService, agent: string) =>
    new SignJWT({ agent_name: agent }).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuer(issuer).setAudience(svc.oauthUrl).setIssuedAt().setExpirationTime("5m").sign(signingKey);

  it("refuses a claim naming a human agent, the admin included, saying how an operator allows it", async () => {
    for (const person of ["admin", "carol"]) {
      const probe = await probeMcp(service.oauthUrl, await signedFor(service, person));
      expect(probe.status, person).toBe(401);
      expect(probe.body).toContain("(names a human agent not listed in OAUTH_HUMAN_AGENTS)");
    }
    expect((await probeMcp(service.oauthUrl, await signedFor(service, "deployer"))).status).toBe(200);
  });

  it("accepts exactly the people OAUTH_HUMAN_AGENTS lists", async () => {
    const client = await connectClient(mapped.oauthUrl, await signedFor(mapped, "carol"));
    expect(await callOk<{ name: string; kind: string }>(client, "whoami")).toMatchObject({ name: "carol", kind: "human" });
    await client.close();
    expect((await probeMcp(mapped.oauthUrl, await signedFor(mapped, "admin"))).status).toBe(401);
  });
});
