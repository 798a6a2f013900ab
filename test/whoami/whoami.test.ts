import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

describe("whoami over real HTTP with a real MCP client", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    const writer = await addAgent(tdb.db, "blog-writer", { scopes: ["shared", "blog"], readScopes: ["deploy"] });
    client = await connectClient(service.mcpUrl, writer.token);
  });

  it("lists whoami with an output schema and server instructions", async () => {
    const { tools } = await client.listTools();
    const whoami = tools.find((t) => t.name === "whoami");
    expect(whoami?.outputSchema).toBeDefined();
    expect(whoami?.annotations?.readOnlyHint).toBe(true);
    expect(client.getInstructions()).toMatch(/memory_recall/);
  });

  it("returns the caller's identity and scopes", async () => {
    const me = await callOk(client, "whoami");
    expect(me).toEqual({ name: "blog-writer", kind: "agent", readScopes: ["blog", "deploy", "shared"], writeScopes: ["blog", "shared"] });
  });
});
