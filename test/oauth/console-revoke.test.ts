// Revoking a token that the OAuth server minted (new-user trial): alone, the
// access token was replaced at the client's next refresh, so a client
// "revoked" in the console went on working. Revoking it, from the console or
// the CLI's store call, revokes its grant: the refresh token and every access
// token of the grant are refused, and the console says so before and after.
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { listTokens } from "../../src/auth/store.js";
import { postForm, signIn } from "../console/support.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { obtainTokens, probeMcp, startOAuthService, tokenRequest, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let boss: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.openPool(3));
  boss = await addAgent(tdb.db, "boss", { kind: "human", scopes: ["*"] });
  await addAgent(tdb.db, "writer", { kind: "agent", scopes: ["shared"] });
});

describe("revoking an OAuth client's token in the console", () => {
  it("labels the token with its client and grant, and revoking it revokes the grant: refresh and every token refused", async () => {
    const granted = await obtainTokens(service, boss.token, "writer");
    // A refresh mints a second access token of the same grant.
    const refreshed = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: granted.client.client_id, refresh_token: granted.refreshToken, resource: service.oauthUrl });
    expect(refreshed.status).toBe(200);
    const second = refreshed.body.access_token as string;
    expect((await probeMcp(service.oauthUrl, granted.accessToken)).status).toBe(200);
    expect((await probeMcp(service.oauthUrl, second)).status).toBe(200);

    // The agent's own static token (addAgent), then the grant's two.
    const all = await listTokens(tdb.db, "writer");
    expect(all[0]!.oauthGrant).toBeNull();
    const tokens = all.slice(1);
    expect(tokens).toHaveLength(2);
    for (const t of tokens) expect(t.oauthGrant).toEqual({ id: expect.any(Number), client: "Test client" });

    const who = await signIn(service.base, boss.token);
    const page = await request(service.base).get("/console/agents/writer").set("Cookie", who.cookie);
    expect(page.text).toContain(`OAuth: Test client (grant ${tokens[0]!.oauthGrant!.id})`);
    expect(page.text).toContain("and its OAuth grant? Test client is refused from its next call and must be authorized again.");

    const revoked = await postForm(service.base, who, `/console/tokens/${tokens[0]!.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe("/console/agents/writer?done=revoked-grant");
    const after = await request(service.base).get(revoked.headers.location!).set("Cookie", who.cookie);
    expect(after.text).toContain("Token revoked with its OAuth grant");

    // Both access tokens, and the refresh token, are refused from now on.
    expect((await probeMcp(service.oauthUrl, granted.accessToken)).status).toBe(401);
    expect((await probeMcp(service.oauthUrl, second)).status).toBe(401);
    const again = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: granted.client.client_id, refresh_token: refreshed.body.refresh_token as string, resource: service.oauthUrl });
    expect(again.status).toBe(400);
    expect((await listTokens(tdb.db, "writer")).map((t) => t.revokedAt !== null)).toEqual([false, true, true]);
    const grant = (await tdb.db.query<{ revoked_reason: string }>("select revoked_reason from oauth_grants where id = $1", [tokens[0]!.oauthGrant!.id])).rows[0];
    expect(grant?.revoked_reason).toBe("revoked by operator");
  });

  it("revokes a static token alone, as before", async () => {
    const other = await addAgent(tdb.db, "static-bot", { kind: "agent", scopes: ["shared"] });
    const [t] = await listTokens(tdb.db, "static-bot");
    expect(t?.oauthGrant).toBeNull();
    const who = await signIn(service.base, boss.token);
    const revoked = await postForm(service.base, who, `/console/tokens/${t!.id}/revoke`, {});
    expect(revoked.headers.location).toBe("/console/agents/static-bot?done=revoked");
    expect((await probeMcp(service.oauthUrl, other.token)).status).toBe(401);
  });
});
