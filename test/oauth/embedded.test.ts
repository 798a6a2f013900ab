// The built-in authorization server on the embedded database (PGlite), the
// default of a fresh install: the whole flow, rotation and reuse detection.
import { beforeAll, describe, expect, it } from "vitest";
import { listGrants } from "../../src/oauth/grants.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, type TestAgent } from "../support/service.js";
import { obtainTokens, probeMcp, startOAuthService, tokenRequest, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let owner: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("pglite");
  service = await startOAuthService(tdb.db);
  owner = await addAgent(tdb.db, "owner", { kind: "human", scopes: ["*"] });
  await addAgent(tdb.db, "helper", { scopes: ["notes"] });
});

describe("OAuth on PGlite", () => {
  it("grants, refreshes with rotation, and revokes the grant on refresh-token reuse", async () => {
    const minted = await obtainTokens(service, owner.token, "helper");
    const client = await connectClient(service.oauthUrl, minted.accessToken);
    expect((await callOk<{ name: string }>(client, "whoami")).name).toBe("helper");
    await client.close();
    const rotated = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: minted.client.client_id, refresh_token: minted.refreshToken });
    expect(rotated.status).toBe(200);
    const reused = await tokenRequest(service.base, { grant_type: "refresh_token", client_id: minted.client.client_id, refresh_token: minted.refreshToken });
    expect(reused.body.error).toBe("invalid_grant");
    expect((await probeMcp(service.oauthUrl, rotated.body.access_token as string)).status).toBe(401);
    expect((await listGrants(tdb.db)).at(-1)).toMatchObject({ agent: "helper", approvedBy: "owner", revokedReason: "refresh token reused" });
  });
});
