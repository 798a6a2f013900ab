// Every refusal of the built-in authorization server, one test each, over real
// HTTP against a real service on Postgres: the standard OAuth error, a clear
// description, and nothing issued.
import { beforeAll, describe, expect, it } from "vitest";
import { setAgentDisabled } from "../../src/auth/store.js";
import { listGrants, revokeGrantById } from "../../src/oauth/grants.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, callOk, type TestAgent } from "../support/service.js";
import {
  authorizeUrl,
  CALLBACK,
  codeFrom,
  consentWithForms,
  obtainTokens,
  pkcePair,
  probeMcp,
  registerClient,
  startOAuthService,
  tokenRequest,
  type OAuthService,
} from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let alice: TestAgent;
let boss: TestAgent;
let writer: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.db);
  alice = await addAgent(tdb.db, "alice", { kind: "human", scopes: ["shared", "alice"] });
  boss = await addAgent(tdb.db, "boss", { kind: "human", scopes: ["*"] });
  writer = await addAgent(tdb.db, "writer", { kind: "agent", scopes: ["blog"] });
});

const countRows = async (table: "oauth_grants" | "oauth_requests" | "oauth_codes" | "oauth_clients") =>
  (await tdb.db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;

describe("the flow without a browser", () => {
  it("mints an ordinary token of the chosen agent, usable on /oauth/mcp", async () => {
    const { accessToken, refreshToken } = await obtainTokens(service, boss.token, "writer");
    expect(accessToken).toMatch(/^amk_/);
    expect(refreshToken).toMatch(/^amr_/);
    const client = await connectClient(service.oauthUrl, accessToken);
    expect((await callOk<{ name: string }>(client, "whoami")).name).toBe("writer");
    await client.close();
  });
});

describe("refusals", () => {
  it("refuses an unregistered redirect URI before any redirect, and parks nothing", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const before = await countRows("oauth_requests");
    const response = await fetch(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge, redirect_uri: "https://evil.example/cb" }), { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_request", error_description: "redirect_uri is not one this client registered." });
    expect(await countRows("oauth_requests")).toBe(before);
  });

  it("refuses to register a plain-http redirect URI that is not loopback", async () => {
    const response = await fetch(`${service.base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://app.example.com/cb"] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("must use https") });
  });

  it("refuses client metadata holding a credential (the secret guard reads every stored text)", async () => {
    const leaked = ["ghp", "Zq8wX3kL9mN2pR5tV7yB4cA1b2C3d4E5f6G7"].join("_");
    const before = await countRows("oauth_clients");
    const response = await fetch(`${service.base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", client_name: `my app ${leaked}` }),
    });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; error_description: string };
    expect(answer).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringContaining("client_name holds what looks like a GitHub token (ghp_…)") });
    expect(answer.error_description).not.toContain(leaked.slice(4));
    expect(await countRows("oauth_clients")).toBe(before);
  });

  it("refuses client metadata without redirect_uris with a description a developer can read", async () => {
    for (const body of ["{}", JSON.stringify({ redirect_uris: "http://127.0.0.1:9/cb" })]) {
      const response = await fetch(`${service.base}/register`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { error: string; error_description: string };
      expect(answer.error).toBe("invalid_client_metadata");
      expect(answer.error_description).toMatch(body === "{}" ? /^redirect_uris is required\. Send JSON client metadata/ : /^redirect_uris: /);
      expect(answer.error_description, "not zod's JSON dump").not.toContain("\n");
    }
  });

  it("refuses an authorization request without PKCE, or with the plain method", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    for (const params of [{}, { code_challenge: "abc", code_challenge_method: "plain" }]) {
      const url = new URL(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: "x" }));
      url.searchParams.delete("code_challenge");
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const response = await fetch(url, { redirect: "manual" });
      expect(response.status).toBe(302);
      expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
    }
  });

  it("refuses a token request without the PKCE verifier, and one with a wrong verifier", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const { challenge } = pkcePair();
    const code = codeFrom(await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: challenge }), { token: alice.token }));
    const missing = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: client.client_id, code });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("invalid_request");
    const wrong = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: client.client_id, code, code_verifier: pkcePair().verifier });
    expect(wrong).toEqual({ status: 400, body: { error: "invalid_grant", error_description: "code_verifier does not match the code's challenge." } });
    const tokens = await tdb.db.query(`select 1 from agent_tokens where oauth_grant_id is not null and agent_id = (select id from agents where name = 'alice')`);
    expect(tokens.rows).toHaveLength(0);
  });

  it("a code used twice: the second use is refused and revokes what the first minted", async () => {
    const first = await obtainTokens(service, alice.token);
    expect((await probeMcp(service.oauthUrl, first.accessToken)).status).toBe(200);
    const again = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: first.client.client_id, code: first.code, code_verifier: first.verifier });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("already used") });
    expect((await probeMcp(service.oauthUrl, first.accessToken)).status).toBe(401);
    const refresh = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: first.client.client_id, refresh_token: first.refreshToken });
    expect(refresh.body.error).toBe("invalid_grant");
  });

  it("refuses an expired code", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const { verifier, challenge } = pkcePair();
    const code = codeFrom(await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: challenge }), { token: alice.token }));
    // Codes live a minute; age this one instead of waiting.
    await tdb.db.query(`update oauth_codes set expires_at = now() - interval '1 second' where used_at is null`);
    const response = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: client.client_id, code, code_verifier: verifier });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("expired") });
  });

  it("refuses a token minted for another resource, and a static token on /oauth/mcp", async () => {
    const { accessToken } = await obtainTokens(service, alice.token);
    // A second service on the same database with another public URL: another resource.
    const other = await startOAuthService(tdb.openPool(2));
    const probe = await probeMcp(other.oauthUrl, accessToken);
    expect(probe.status).toBe(401);
    expect(probe.wwwAuthenticate).toContain(`resource_metadata="${other.base}/.well-known/oauth-protected-resource/oauth/mcp"`);
    expect(probe.body).toContain("not issued for");
    expect((await probeMcp(service.oauthUrl, alice.token)).status).toBe(401);
    // ...and the static token still works where it belongs.
    expect((await probeMcp(`${service.base}/mcp`, alice.token)).status).toBe(200);
  });

  it("access tokens are short-lived agent tokens: an expired one is refused, the refresh token gets a new one", async () => {
    const { accessToken, refreshToken, client } = await obtainTokens(service, alice.token);
    const row = (await tdb.db.query<{ seconds: number }>(
      `select extract(epoch from (expires_at - created_at))::int as seconds from agent_tokens where hint = $1 and oauth_grant_id is not null`,
      [`${accessToken.slice(0, 8)}…`],
    )).rows[0]!;
    expect(row.seconds).toBe(3600);
    await tdb.db.query(`update agent_tokens set created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' where hint = $1`, [`${accessToken.slice(0, 8)}…`]);
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(401);
    const refreshed = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: client.client_id, refresh_token: refreshToken });
    expect(refreshed.body.expires_in).toBe(3600);
    expect((await probeMcp(service.oauthUrl, refreshed.body.access_token as string)).status).toBe(200);
  });

  it("refuses an authorization request for another resource (RFC 8707)", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const response = await fetch(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge, resource: "https://other.example/mcp" }), { redirect: "manual" });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get("location")!).searchParams;
    expect(back.get("error")).toBe("invalid_target");
    // RFC 9207 (asked of authorization servers by MCP 2026-07-28): errors name the issuer too.
    expect(back.get("iss")).toBe(`${service.base}/`);
  });

  it("a revoked grant: its access token and refresh token stop working", async () => {
    const { accessToken, refreshToken, client } = await obtainTokens(service, alice.token);
    const grant = (await listGrants(tdb.db, "alice")).at(-1)!;
    await revokeGrantById(tdb.db, grant.id);
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(401);
    const refresh = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: client.client_id, refresh_token: refreshToken });
    expect(refresh.body).toMatchObject({ error: "invalid_grant" });
  });

  it("a disabled agent: its OAuth tokens are refused, refresh too, and it cannot sign in at the consent page", async () => {
    const carol = await addAgent(tdb.db, "carol", { kind: "human" });
    const { accessToken, refreshToken, client } = await obtainTokens(service, carol.token);
    await setAgentDisabled(tdb.db, "carol", true);
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(401);
    const refresh = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: client.client_id, refresh_token: refreshToken });
    expect(refresh.body).toMatchObject({ error: "invalid_grant" });
    const answer = await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge }), { token: carol.token });
    expect(answer.status).toBe(401);
    expect(answer.html).toContain("not the valid token of a human agent");
  });

  it("refuses an agent token (not a human) at the consent page, and lets a non-admin act only as themself", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const url = authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge });
    expect((await consentWithForms(url, { token: writer.token })).status).toBe(401);
    const grantsBefore = await countRows("oauth_grants");
    const answer = await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge }), { token: alice.token, agent: "writer" });
    expect(answer.status).toBe(400);
    expect(await countRows("oauth_grants")).toBe(grantsBefore);
  });

  it("lets an admin hand a client a non-human agent or themself, never another person, with nothing preselected", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const url = () => authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge });
    const grantsBefore = await countRows("oauth_grants");
    const asAlice = await consentWithForms(url(), { token: boss.token, agent: "alice" });
    expect(asAlice.status).toBe(400);
    expect(asAlice.html).toContain("Choose one of the agents offered");
    expect(await countRows("oauth_grants")).toBe(grantsBefore);
    // The choice page: the admin and the agents, none checked, one required.
    const first = await fetch(url(), { redirect: "manual" });
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
    const request = /name="request" value="([^"]+)"/.exec(await first.text())![1]!;
    const choose = await fetch(new URL("/oauth/consent", service.base), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ request, step: "signin", token: boss.token }).toString(),
    });
    const html = await choose.text();
    expect([...html.matchAll(/name="agent" value="([^"]+)"/g)].map((m) => m[1])).toEqual(["boss", "writer"]);
    expect(html).not.toMatch(/name="agent"[^>]*checked/);
    expect(html).toMatch(/name="agent"[^>]*required/);
    expect((await consentWithForms(url(), { token: boss.token, agent: "writer" })).status).toBe(302);
  });

  it("a person may deny before signing in: access_denied, nothing granted", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const first = await fetch(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge, state: "s0" }), { redirect: "manual" });
    const page = await first.text();
    expect(page).toMatch(/<button[^>]*name="decision"[^>]*value="deny"[^>]*formnovalidate/);
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
    const request = /name="request" value="([^"]+)"/.exec(page)![1]!;
    const grantsBefore = await countRows("oauth_grants");
    const denied = await fetch(new URL("/oauth/consent", service.base), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams({ request, step: "signin", token: "", decision: "deny" }).toString(),
    });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("s0");
    expect(await countRows("oauth_grants")).toBe(grantsBefore);
  });

  it("refuses the consent form without the browser's CSRF cookie", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const answer = await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge }), { token: alice.token, dropCookie: true });
    expect(answer.status).toBe(403);
  });

  it("a person who denies sends the client access_denied and nothing is granted", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const grantsBefore = await countRows("oauth_grants");
    const answer = await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge, state: "s1" }), { token: alice.token, decision: "deny" });
    const location = new URL(answer.location!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("s1");
    expect(await countRows("oauth_grants")).toBe(grantsBefore);
  });

  it("a reused refresh token revokes the whole grant", async () => {
    const { refreshToken, client } = await obtainTokens(service, alice.token);
    const rotated = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: client.client_id, refresh_token: refreshToken });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(refreshToken);
    const reused = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: client.client_id, refresh_token: refreshToken });
    expect(reused.body).toMatchObject({ error: "invalid_grant", error_description: expect.stringContaining("already used") });
    expect((await probeMcp(service.oauthUrl, rotated.body.access_token as string)).status).toBe(401);
  });

  it("escapes a hostile client name on the consent page", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], client_name: `<script>alert(1)</script>"x` });
    const response = await fetch(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge }));
    const html = await response.text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script>");
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'self'; form-action 'self' http://127.0.0.1:9; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it("never writes codes, tokens, secrets or verifiers to the log", async () => {
    const { accessToken, refreshToken, code, verifier } = await obtainTokens(service, boss.token);
    const log = service.logLines.join("\n");
    expect(service.logLines.length).toBeGreaterThan(0);
    for (const secret of [accessToken, refreshToken, code, verifier, boss.token]) expect(log).not.toContain(secret);
  });
});

describe("rate limits", () => {
  it("limits registrations and token requests per client address", async () => {
    const limited = await startOAuthService(tdb.openPool(2), { OAUTH_RATE_LIMIT_PER_MINUTE: "2" });
    const register = () => fetch(`${limited.base}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [CALLBACK] }) });
    expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(201);
    const third = await register();
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: "too_many_requests" });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await tokenRequest(limited.base, { grant_type: "refresh_token", client_id: "x", refresh_token: "y" })).status);
    expect(statuses).toEqual([400, 400, 429]);
  });
});
