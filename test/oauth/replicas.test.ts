// Two replicas on one Postgres database behind one public URL: everything the
// authorization server knows is in the database, so a token minted through one
// replica is accepted, refreshed and revoked through the other.
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, type TestAgent } from "../support/service.js";
import { obtainTokens, probeMcp, startOAuthService, tokenRequest, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let a: OAuthService;
let b: OAuthService;
let alice: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  a = await startOAuthService(tdb.openPool(3));
  // Replica b serves the same public URL (a load balancer would send clients to either).
  b = await startOAuthService(tdb.openPool(3), { PUBLIC_URL: a.base });
  alice = await addAgent(tdb.db, "alice", { kind: "human" });
});

describe("two replicas", () => {
  it("a token minted through one is accepted, refreshed and revoked through the other", async () => {
    const minted = await obtainTokens(a, alice.token);
    const onB = await connectClient(`${b.direct}/oauth/mcp`, minted.accessToken);
    expect((await callOk<{ name: string }>(onB, "whoami")).name).toBe("alice");
    await onB.close();

    const refreshed = await tokenRequest(b.direct, { grant_type: "refresh_token", client_id: minted.client.client_id, refresh_token: minted.refreshToken });
    expect(refreshed.status).toBe(200);
    const access = refreshed.body.access_token as string;
    expect((await probeMcp(a.oauthUrl, access)).status).toBe(200);
    // The rotated-out refresh token, replayed at the first replica, is caught there too.
    const replay = await tokenRequest(a.direct, { grant_type: "refresh_token", client_id: minted.client.client_id, refresh_token: minted.refreshToken });
    expect(replay.body.error).toBe("invalid_grant");
    expect((await probeMcp(a.oauthUrl, access)).status).toBe(401);
  });

  it("revocation through one replica is seen by the other at once", async () => {
    const minted = await obtainTokens(b, alice.token);
    expect((await probeMcp(`${a.direct}/oauth/mcp`, minted.accessToken)).status).toBe(200);
    const revoked = await fetch(`${a.direct}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: minted.client.client_id, token: minted.accessToken }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await probeMcp(`${b.direct}/oauth/mcp`, minted.accessToken)).status).toBe(401);
    // An access token's revocation leaves the grant: the refresh token still works, on either replica.
    const refreshed = await tokenRequest(b.direct, { grant_type: "refresh_token", client_id: minted.client.client_id, refresh_token: minted.refreshToken });
    expect(refreshed.status).toBe(200);
  });
});
