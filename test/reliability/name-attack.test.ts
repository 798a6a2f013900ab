// One agent must not stall the service through "did you mean". An unknown tool
// name or argument key is compared with the known names to suggest one; a name
// of a megabyte made that seconds of CPU on the main thread per call. Three
// loops of such calls run while /healthz and another agent's whoami are timed:
// the event loop stays free, and the answers say what was wrong.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { QUOTED_NAME_MAX_CHARS, SUGGESTED_NAME_MAX_CHARS } from "../../src/limits.js";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService, textOf } from "../support/service.js";

const HEALTHZ_BOUND_MS = 500;
const OTHER_AGENT_BOUND_MS = 1_000;

describe("long unknown names do not hold the service", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let attacker: Client;
  let bystander: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    attacker = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "attacker")).token);
    bystander = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "bystander")).token);
  });

  it("refuses a name too long to be a tool's as such, quoting only its start", async () => {
    const name = `memory_recall${"x".repeat(SUGGESTED_NAME_MAX_CHARS)}`;
    const result = (await attacker.callTool({ name, arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain(`a name of ${name.length} characters is not a tool name (at most ${SUGGESTED_NAME_MAX_CHARS})`);
    expect(text).toContain(`"${name.slice(0, QUOTED_NAME_MAX_CHARS)}…"`);
    expect(text).not.toContain("Did you mean");
    // A name of an ordinary length still gets its suggestion.
    expect(textOf((await attacker.callTool({ name: "memory_recal", arguments: {} })) as CallToolResult)).toContain("Did you mean memory_recall");
  });

  it("refuses an argument key too long to be one as such, with no suggestion", async () => {
    const key = `keywords${"s".repeat(SUGGESTED_NAME_MAX_CHARS)}`;
    const result = (await attacker.callTool({ name: "memory_recall", arguments: { keywords: ["deploy"], [key]: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`- unknown argument \`${key.slice(0, QUOTED_NAME_MAX_CHARS)}…\`; the arguments are`);
  });

  it("keeps /healthz and another agent's calls answered while names of a megabyte arrive", async () => {
    const hugeName = "m".repeat(1_000_000);
    const hugeKey = "k".repeat(200_000);
    let attacking = true;
    const loop = async () => {
      for (let round = 0; round < 4; round++) {
        await attacker.callTool({ name: hugeName, arguments: {} });
        await attacker.callTool({ name: "memory_recall", arguments: { keywords: ["deploy"], [hugeKey]: true, [`${hugeKey}2`]: true } });
      }
    };
    const attack = Promise.all([loop(), loop(), loop()]).finally(() => (attacking = false));

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
      probe(other, () => callOk(bystander, "whoami")),
    ]);
    expect(healthz.length).toBeGreaterThan(0);
    expect(Math.max(...healthz), `healthz latencies ${healthz.map(Math.round).join(", ")}`).toBeLessThanOrEqual(HEALTHZ_BOUND_MS);
    expect(Math.max(...other), `other agent's latencies ${other.map(Math.round).join(", ")}`).toBeLessThanOrEqual(OTHER_AGENT_BOUND_MS);
  });
});
