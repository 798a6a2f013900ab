// ledger_claim's lease argument is ttlSeconds (camelCase like every other tool
// argument); its first spelling ttl_seconds stays accepted so no client breaks.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callError, callOk, connectClient, startTestService } from "../support/service.js";

interface ClaimAnswer {
  claim: { claimedAt: string; expiresAt: string };
}
const leaseSeconds = (a: ClaimAnswer) => (Date.parse(a.claim.expiresAt) - Date.parse(a.claim.claimedAt)) / 1000;

describe("ledger_claim ttlSeconds and its alias ttl_seconds", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    const agent = await addAgent(tdb.db, "deployer", { scopes: ["deploy", "shared"] });
    client = await connectClient(service.mcpUrl, agent.token);
  });

  it("lists ttlSeconds, and ttl_seconds as the old spelling", async () => {
    const { tools } = await client.listTools();
    const properties = tools.find((t) => t.name === "ledger_claim")!.inputSchema.properties!;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(["ttlSeconds", "ttl_seconds"]));
  });

  it("holds the claim for ttlSeconds", async () => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "new-spelling", ttlSeconds: 120 }))).toBe(120);
  });

  it("holds the claim for ttl_seconds, the old spelling", async () => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "old-spelling", ttl_seconds: 90 }))).toBe(90);
  });

  it("accepts both when they agree, refuses them when they disagree, and claims nothing then", async () => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "both", ttlSeconds: 60, ttl_seconds: 60 }))).toBe(60);
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "disagree", ttlSeconds: 60, ttl_seconds: 30 })).toMatch(/ttlSeconds \(60\) and its old spelling ttl_seconds \(30\) disagree/);
    expect(await callOk<{ status: string }>(client, "ledger_check", { action: "deploy", target: "disagree" })).toMatchObject({ status: "NOT_EXECUTED" });
  });

  it("checks the range under either spelling, naming the field", async () => {
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "x", ttlSeconds: 5 })).toMatch(/ttlSeconds/);
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "x", ttl_seconds: 5 })).toMatch(/ttl_seconds/);
  });
});
