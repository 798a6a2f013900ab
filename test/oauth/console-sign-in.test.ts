// An OAuth access token is for MCP only: it may not sign in to the console,
// where a session could mint static tokens that outlive the grant (security
// review, 1 Dec 2026). The refusal is counted as "invalid", never by reason.
import { beforeAll, describe, expect, it } from "vitest";
import { postSignIn } from "../console/support.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { obtainTokens, probeMcp, startOAuthService, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let boss: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startOAuthService(tdb.openPool(3));
  boss = await addAgent(tdb.db, "boss", { kind: "human", scopes: ["*"] });
});

describe("console sign-in with an OAuth access token", () => {
  it("is refused, though the same token works on MCP and the human's own token signs in", async () => {
    const { accessToken } = await obtainTokens(service, boss.token, "boss");
    expect((await probeMcp(service.oauthUrl, accessToken)).status).toBe(200);
    const refused = await postSignIn(service.base, accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers["set-cookie"]?.toString() ?? "").not.toMatch(/am_console=/);
    expect((await postSignIn(service.base, boss.token)).status).toBe(303);
    const metrics = await (await fetch(`${service.base}/metrics`)).text();
    expect(metrics).toMatch(/agent_memory_auth_failures_total\{reason="invalid"\} [1-9]/);
    expect(metrics).not.toMatch(/reason="(revoked|expired|unknown|malformed|not_human)"/);
  });
});
