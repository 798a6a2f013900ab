// End to end as a hosted client does it: the SDK's own client OAuth support
// (discovery from a 401 on /oauth/mcp, dynamic registration, PKCE, code
// exchange, refresh) with a real person's step in real Chromium, then MCP calls
// attributed to the agent chosen on the consent page, then revocation.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { discoverAuthorizationServerMetadata, refreshAuthorization, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listGrants } from "../../src/oauth/grants.js";
import { launchBrowser } from "../support/browser.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, type TestAgent } from "../support/service.js";
import { probeMcp, startOAuthService, type OAuthService } from "./support.js";

/** What a hosted client keeps: its registration, tokens and PKCE verifier. */
class TestOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(private readonly callback: string, private readonly name: string) {}
  get redirectUrl() {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.callback], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "client_secret_post" };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The client's redirect target: records the code the browser brings back. */
async function startCallbackServer(): Promise<{ url: string; server: Server; nextCode: () => Promise<URLSearchParams> }> {
  let waiting: ((q: URLSearchParams) => void) | undefined;
  const server = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://x").searchParams;
    res.end("You can close this window.");
    waiting?.(query);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, server, nextCode: () => new Promise((resolve) => (waiting = resolve)) };
}

let tdb: TestDatabase;
let service: OAuthService;
let browser: Browser;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let alice: TestAgent;
let boss: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.db);
  browser = await launchBrowser();
  callback = await startCallbackServer();
  alice = await addAgent(tdb.db, "alice", { kind: "human", scopes: ["shared", "alice"] });
  boss = await addAgent(tdb.db, "boss", { kind: "human", scopes: ["*"] });
  await addAgent(tdb.db, "writer", { kind: "agent", scopes: ["blog"] });
});

afterAll(async () => {
  await browser?.close();
  callback?.server.close();
});

/** The whole connection as a hosted client makes it; the person acts in Chromium. */
async function connectThroughBrowser(oauth: TestOAuthClient, person: TestAgent, chooseAgent?: string) {
  const first = new StreamableHTTPClientTransport(new URL(service.oauthUrl), { authProvider: oauth });
  await expect(new Client({ name: "hosted", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(oauth.authorizationUrl).toBeDefined();

  const page = await browser.newPage();
  const cspViolations: string[] = [];
  page.on("console", (m) => m.type() === "error" && cspViolations.push(m.text()));
  const arrived = callback.nextCode();
  await page.goto(oauth.authorizationUrl!.href);
  const names = { client: await page.getByTestId("client-name").textContent(), redirect: await page.getByTestId("redirect-host").textContent() };
  await page.fill("input[name=token]", person.token);
  await page.click("button[type=submit]");
  const offered = await page.locator("input[name=agent]").evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
  if (chooseAgent) await page.check(`input[name=agent][value="${chooseAgent}"]`);
  await page.click("button[value=approve]");
  const query = await arrived;
  await page.close();

  await first.finishAuth(query.get("code")!);
  const transport = new StreamableHTTPClientTransport(new URL(service.oauthUrl), { authProvider: oauth });
  const client = new Client({ name: "hosted", version: "1" });
  await client.connect(transport);
  return { client, names, offered, query, cspViolations };
}

describe("a hosted MCP client connects with OAuth from the URL alone", () => {
  it("discovers, registers, gets the person's consent in Chromium, and acts as the person's own agent", async () => {
    const oauth = new TestOAuthClient(callback.url, "Claude (test)");
    const { client, names, offered, query, cspViolations } = await connectThroughBrowser(oauth, alice);
    expect(names).toEqual({ client: "Claude (test)", redirect: new URL(callback.url).host });
    expect(offered).toEqual(["alice"]);
    expect(query.get("iss")).toBe(`${service.base}/`);
    expect(oauth.info?.client_secret).toBeDefined();
    expect(cspViolations).toEqual([]);
    expect(await callOk<{ name: string; kind: string }>(client, "whoami")).toMatchObject({ name: "alice", kind: "human" });
    // Authorship is the chosen agent's, as for a static token.
    await callOk(client, "memory_store", { name: "oauth-works", description: "Stored through OAuth", type: "project", body: "x", scope: "alice" });
    const got = await callOk<{ fact: { author: string } }>(client, "memory_get", { name: "oauth-works", scope: "alice" });
    expect(got.fact.author).toBe("alice");
    await client.close();
  });

  it("an admin chooses another agent; the client acts as that agent; refresh rotates; revocation ends it", async () => {
    const oauth = new TestOAuthClient(callback.url, "ChatGPT (test)");
    const { client, offered } = await connectThroughBrowser(oauth, boss, "writer");
    // Never another person (alice): only the admin and the non-human agents.
    expect(offered).toEqual(["boss", "writer"]);
    expect((await callOk<{ name: string }>(client, "whoami")).name).toBe("writer");
    await client.close();

    const grant = (await listGrants(tdb.db, "writer")).at(-1)!;
    expect(grant).toMatchObject({ agent: "writer", approvedBy: "boss", clientName: "ChatGPT (test)", revokedAt: null });

    // Refresh with the SDK's own client code.
    const metadata = (await discoverAuthorizationServerMetadata(new URL(service.base)))!;
    const before = oauth.saved!;
    const refreshed = await refreshAuthorization(new URL(service.base), { metadata, clientInformation: oauth.info!, refreshToken: before.refresh_token!, resource: new URL(service.oauthUrl) });
    expect(refreshed.access_token).not.toBe(before.access_token);
    expect(refreshed.refresh_token).not.toBe(before.refresh_token);
    expect((await probeMcp(service.oauthUrl, refreshed.access_token)).status).toBe(200);

    // RFC 7009 revocation of the refresh token ends the grant: every access token of it stops.
    const revoked = await fetch(`${service.base}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshed.refresh_token!, client_id: oauth.info!.client_id, client_secret: oauth.info!.client_secret! }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await probeMcp(service.oauthUrl, refreshed.access_token)).status).toBe(401);
    expect((await probeMcp(service.oauthUrl, before.access_token)).status).toBe(401);
    expect((await listGrants(tdb.db, "writer")).at(-1)).toMatchObject({ revokedReason: "revoked by client" });
  });
});
