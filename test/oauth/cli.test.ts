// The operator's side, through the built CLI: `grant list|revoke`, and `serve`
// naming the OAuth connector URL (banner and --json).
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { onlyJson, runCli, startServe } from "../support/cli.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { authorizeUrl, CALLBACK, codeFrom, consentWithForms, freePort, obtainTokens, pkcePair, probeMcp, registerClient, startOAuthService, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let boss: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.openPool(3));
  boss = await addAgent(tdb.db, "boss", { kind: "human", scopes: ["*"] });
  await addAgent(tdb.db, "writer", { scopes: ["blog"] });
  await addAgent(tdb.db, "drafter", { scopes: ["blog"] });
});

describe("agent-memory grant", () => {
  it("lists grants and revokes one: its tokens stop at once", async () => {
    const { accessToken } = await obtainTokens(service, boss.token, "writer");
    const env = { DATABASE_URL: tdb.url! };
    const listed = onlyJson<{ grants: Array<Record<string, unknown>> }>(await runCli(["grant", "list", "--json"], env));
    expect(listed.grants).toEqual([expect.objectContaining({ agent: "writer", approvedBy: "boss", clientName: "Test client", resource: service.oauthUrl, revokedAt: null, status: "active" })]);
    const id = String(listed.grants[0]!.id);
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(200);
    const revoked = onlyJson<{ grant: Record<string, unknown> }>(await runCli(["grant", "revoke", id, "--json"], env));
    expect(revoked.grant).toMatchObject({ revokedReason: "revoked by operator" });
    const refused = await probeMcp(service.oauthUrl, accessToken);
    expect(refused.status).toBe(401);
    // An OAuth client is told to authorize again, not to ask an operator for a token.
    expect(refused.body).toContain("Authorize again");
    expect(refused.body).not.toContain("Ask an operator");
    const text = await runCli(["grant", "list", "writer"], env);
    expect(text.stdout).toContain("revoked: revoked by operator");
    const missing = await runCli(["grant", "revoke", "99999"], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("No grant with id 99999");
  }, 180_000); // four CLI processes: each starts node and opens the database

  it("token list shows a grant's tokens, and token revoke on one of them revokes its grant", async () => {
    const { accessToken } = await obtainTokens(service, boss.token, "writer");
    const env = { DATABASE_URL: tdb.url! };
    const listed = onlyJson<{ tokens: Array<{ id: number; oauthGrant: { id: number; client: string } | null; revokedAt: string | null }> }>(
      await runCli(["token", "list", "writer", "--json"], env),
    );
    const live = listed.tokens.filter((t) => t.oauthGrant && !t.revokedAt);
    expect(live).toHaveLength(1);
    const text = await runCli(["token", "list", "writer"], env);
    expect(text.stdout).toContain("GRANT");
    expect(text.stdout).toContain(`${live[0]!.oauthGrant!.id} (Test client)`);
    const revoked = await runCli(["token", "revoke", String(live[0]!.id)], env);
    expect(revoked.stdout).toContain(`revoked, with OAuth grant ${live[0]!.oauthGrant!.id} (Test client)`);
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(401);
  }, 180_000);

  it("tells an approval the client never finished from a live grant: pending, then unused once its code expired", async () => {
    const client = await registerClient(service.base, { redirect_uris: [CALLBACK], client_name: "Abandoned client", token_endpoint_auth_method: "none" });
    const approved = await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: pkcePair().challenge, resource: service.oauthUrl }), { token: boss.token, agent: "drafter" });
    expect(codeFrom(approved)).toBeTruthy();
    const env = { DATABASE_URL: tdb.url! };
    const status = async () => onlyJson<{ grants: Array<{ status: string }> }>(await runCli(["grant", "list", "drafter", "--json"], env)).grants.map((g) => g.status);
    expect(await status()).toEqual(["pending"]);
    // The code's ten minutes pass without an exchange.
    await tdb.db.query("update oauth_codes set expires_at = now() - interval '1 second' where grant_id in (select g.id from oauth_grants g join agents a on a.id = g.agent_id where a.name = 'drafter')");
    expect(await status()).toEqual(["unused"]);
    expect((await runCli(["grant", "list", "drafter"], env)).stdout).toContain("unused: code expired, never exchanged");
  });
});

describe("agent-memory serve with OAuth", () => {
  it("prints the connector URL in the banner and as oauthMcpUrl with --json", async () => {
    const port = await freePort();
    const env = { DATABASE_URL: tdb.url!, PORT: String(port), OAUTH_MODE: "builtin", PUBLIC_URL: `http://127.0.0.1:${port}`, FIRST_START_OWNER: "false" };
    // Ready once the --json result line is out: it is the line read here.
    const json = startServe(env, ["--json"]);
    await json.ready;
    const line = json.stdout().split("\n").find((l) => l.includes('"oauthMcpUrl"'))!;
    expect(JSON.parse(line)).toMatchObject({ oauthMcpUrl: `http://127.0.0.1:${port}/oauth/mcp` });

    const text = startServe({ ...env, PORT: String(await freePort()) });
    await text.ready;
    await text.waitForOutput("stderr", `add http://127.0.0.1:${port}/oauth/mcp as the connector URL`);
  }, 180_000);
});
