// One request must not freeze the service through the secret guard. Two
// agents send what makes a backtracking pattern quadratic ("-eyJ" over and
// over, as many characters as a graph call may carry): one that may write,
// one that may write nothing (refused before any scan). Meanwhile /healthz
// and another agent's calls are timed: the event loop stays free.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

const HEALTHZ_BOUND_MS = 500;
const OTHER_AGENT_BOUND_MS = 1_000;

describe("a scan-heavy write does not hold the service (pglite)", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let reader: Client;
  let outsider: Client;
  let bystander: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("pglite");
    service = await startTestService(tdb.db);
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token);
    outsider = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "outsider", { scopes: ["elsewhere"] })).token);
    reader = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "reader", { scopes: [] })).token);
    bystander = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "bystander", { scopes: ["shared"] })).token);
    await callOk(bystander, "memory_store", { name: "deploy-window", description: "Deploys happen on Tuesdays", type: "project", body: "Never on Fridays." });
  });

  it("keeps /healthz and another agent's calls answered while the attack runs", async () => {
    // 60 observations of 4,000 characters: within the embedded database's per-call limit, each one quadratic for a backtracking pattern.
    const heavy = "-eyJ".repeat(1000);
    const entities = [{ name: "blob", entityType: "x", observations: Array.from({ length: 60 }, (_, i) => `${i}${heavy}`) }];
    const bigBody = "-eyJ".repeat(24_000);
    let attacking = true;
    const attack = (async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all([
          writer.callTool({ name: "create_entities", arguments: { entities: [{ ...entities[0]!, name: `blob-${round}` }] } }),
          writer.callTool({ name: "memory_store", arguments: { name: `big-${round}`, description: "big", type: "project", body: bigBody } }),
          reader.callTool({ name: "create_entities", arguments: { entities } }),
          outsider.callTool({ name: "create_entities", arguments: { entities, scope: "shared" } }),
        ]);
      }
      attacking = false;
    })();

    const healthz: number[] = [];
    const other: number[] = [];
    const probe = async (into: number[], call: () => Promise<unknown>) => {
      while (attacking) {
        const started = performance.now();
        await call();
        into.push(performance.now() - started);
      }
    };
    await Promise.all([
      attack,
      probe(healthz, () => fetch(`${service.url}/healthz`).then((r) => r.text())),
      probe(other, () => callOk(bystander, "memory_recall", { keywords: ["deploy"] })),
    ]);
    expect(healthz.length).toBeGreaterThan(0);
    expect(Math.max(...healthz), `healthz latencies ${healthz.map(Math.round).join(", ")}`).toBeLessThanOrEqual(HEALTHZ_BOUND_MS);
    expect(Math.max(...other), `other agent's latencies ${other.map(Math.round).join(", ")}`).toBeLessThanOrEqual(OTHER_AGENT_BOUND_MS);
  });
});
