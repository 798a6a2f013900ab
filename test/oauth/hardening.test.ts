// Refusals and limits of the built-in authorization server that a security
// audit found missing, over real HTTP against a real service on Postgres:
// redirect URIs no app should register, the consent page's sign-in limit (wrong
// tokens only, as on /mcp), and the coarse reasons of the failure metric.
import { beforeAll, describe, expect, it } from "vitest";
import { adminQuery } from "../support/admin-db.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { authorizeUrl, CALLBACK, pkcePair, probeMcp, registerClient, startOAuthService, tokenRequest, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let alice: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.db);
  alice = await addAgent(tdb.db, "alice", { kind: "human", scopes: ["shared", "alice"] });
});

describe("redirect URIs", () => {
  it("refuses file: and other non-web redirect URIs, and URIs with a user name or password, saying what to use; registers nothing", async () => {
    const before = (await tdb.db.query<{ n: number }>("select count(*)::int as n from oauth_clients")).rows[0]!.n;
    const cases: Array<[string, RegExp]> = [
      ["file:///tmp/callback", /^redirect_uri file:\/\/\/tmp\/callback uses file:, which cannot receive an authorization code safely\. Use https, http on localhost or 127\.0\.0\.1, or your app's own scheme/],
      ["ftp://files.example.com/cb", /uses ftp:/],
      ["ws://127.0.0.1:9/cb", /uses ws:/],
      ["https://user:secret@app.example.com/cb", /^redirect_uri https:\/\/app\.example\.com\/cb \(credentials removed\) has a user name or password in it.*Register it without/],
      ["http://alice@127.0.0.1:9/cb", /has a user name or password in it/],
      ["com.example.app://user:pw@callback", /has a user name or password in it/],
    ];
    for (const [uri, message] of cases) {
      const response = await fetch(`${service.base}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [uri] }) });
      expect(response.status, uri).toBe(400);
      const answer = (await response.json()) as { error: string; error_description: string };
      expect(answer.error, uri).toBe("invalid_client_metadata");
      expect(answer.error_description, uri).toMatch(message);
      expect(answer.error_description, uri).not.toContain("secret");
    }
    expect((await tdb.db.query<{ n: number }>("select count(*)::int as n from oauth_clients")).rows[0]!.n).toBe(before);
    // An app's own scheme (RFC 8252) still registers.
    expect((await registerClient(service.base, { redirect_uris: ["com.example.app:/callback", "vscode://publisher.ext/cb"] })).client_id).toBeTruthy();
  });
});

describe("the failure metric", () => {
  it("counts a token of another resource or a static token on /oauth/mcp as reason invalid on /metrics, nothing finer", async () => {
    const agent = await addAgent(tdb.db, "static-probe");
    expect((await probeMcp(service.oauthUrl, agent.token)).status).toBe(401);
    const metrics = await (await fetch(`${service.base}/metrics`)).text();
    const reasons = [...metrics.matchAll(/^agent_memory_auth_failures_total\{reason="([^"]+)"\}/gm)].map((m) => m[1]);
    expect(reasons.every((r) => r === "missing" || r === "invalid"), reasons.join(", ")).toBe(true);
    expect(reasons).toContain("invalid");
  });
});

describe("the consent page's sign-in limit", () => {
  it("the consent form counts only failed sign-ins: over the limit, bad tokens get 429 and a valid human still signs in and approves", async () => {
    const limited = await startOAuthService(tdb.openPool(2), { AUTH_FAILURES_PER_MINUTE: "2", OAUTH_RATE_LIMIT_PER_MINUTE: "4" });
    const client = await registerClient(limited.base, { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" });
    const { verifier, challenge } = pkcePair();
    const first = await fetch(authorizeUrl(limited.base, { client_id: client.client_id, code_challenge: challenge, resource: limited.oauthUrl }), { redirect: "manual" });
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0]!;
    const request = /name="request" value="([^"]+)"/.exec(await first.text())![1]!;
    const post = (fields: Record<string, string>) =>
      fetch(new URL("/oauth/consent", limited.base), {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ request, ...fields }).toString(),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post({ step: "signin", token: `amk_${"z".repeat(43)}` })).status);
    expect(statuses).toEqual([401, 401, 429, 429, 429]);
    // Someone else's guesses at the same address lock nobody out: a valid token signs in, and the approval goes through.
    const signedIn = await post({ step: "signin", token: alice.token });
    expect(signedIn.status).toBe(200);
    const approved = await post({ step: "decide", decision: "approve", agent: "alice" });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
    const exchanged = await tokenRequest(limited.base, { grant_type: "authorization_code", client_id: client.client_id, code, code_verifier: verifier, redirect_uri: CALLBACK, resource: limited.oauthUrl });
    expect(exchanged.status).toBe(200);
    expect((await post({ step: "signin", token: `amk_${"z".repeat(43)}` })).status).toBe(429);
  });
});

describe("the database away", () => {
  it("the endpoints answer 503 temporarily_unavailable with Retry-After, and serve again once it is back", async () => {
    const own = await createTestDatabase("postgres");
    const away = await startOAuthService(own.openPool(2));
    const register = () =>
      fetch(`${away.base}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" }) });
    try {
      await adminQuery(`alter database ${own.name} with allow_connections false`);
      await adminQuery(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1`, [own.name]);
      const refused = await register();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable", error_description: expect.stringMatching(/unreachable.*retry/i) });
      const token = await tokenRequest(away.base, { grant_type: "refresh_token", client_id: "x", refresh_token: "y" });
      expect(token.status).toBe(503);
      await adminQuery(`alter database ${own.name} with allow_connections true`);
      expect((await register()).status).toBe(201);
    } finally {
      await adminQuery(`alter database ${own.name} with allow_connections true`);
    }
  });
});
