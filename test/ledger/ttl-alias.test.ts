// ledger_claim's lease argument is ttlSeconds (camelCase like every other tool
// argument); its first spelling ttl_seconds stays accepted so no client breaks.
import { describe, expect } from "vitest";
import { callError, callOk } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";

interface ClaimAnswer {
  claim: { claimedAt: string; expiresAt: string };
}
const leaseSeconds = (a: ClaimAnswer) => (Date.parse(a.claim.expiresAt) - Date.parse(a.claim.claimedAt)) / 1000;

const test = serviceTest({ agents: { deployer: { scopes: ["deploy", "shared"] } } });

describe("ledger_claim ttlSeconds and its alias ttl_seconds", () => {
  test("lists ttlSeconds, and ttl_seconds as the old spelling", async ({ clients: { deployer: client } }) => {
    const { tools } = await client.listTools();
    const properties = tools.find((t) => t.name === "ledger_claim")!.inputSchema.properties!;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(["ttlSeconds", "ttl_seconds"]));
  });

  test("holds the claim for ttlSeconds", async ({ clients: { deployer: client } }) => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "new-spelling", ttlSeconds: 120 }))).toBe(120);
  });

  test("holds the claim for ttl_seconds, the old spelling", async ({ clients: { deployer: client } }) => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "old-spelling", ttl_seconds: 90 }))).toBe(90);
  });

  test("accepts both when they agree, refuses them when they disagree, and claims nothing then", async ({ clients: { deployer: client } }) => {
    expect(leaseSeconds(await callOk<ClaimAnswer>(client, "ledger_claim", { action: "deploy", target: "both", ttlSeconds: 60, ttl_seconds: 60 }))).toBe(60);
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "disagree", ttlSeconds: 60, ttl_seconds: 30 })).toMatch(/ttlSeconds \(60\) and its old spelling ttl_seconds \(30\) disagree/);
    expect(await callOk<{ status: string }>(client, "ledger_check", { action: "deploy", target: "disagree" })).toMatchObject({ status: "NOT_EXECUTED" });
  });

  test("checks the range under either spelling, naming the field", async ({ clients: { deployer: client } }) => {
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "x", ttlSeconds: 5 })).toMatch(/ttlSeconds/);
    expect(await callError(client, "ledger_claim", { action: "deploy", target: "x", ttl_seconds: 5 })).toMatch(/ttl_seconds/);
  });
});
