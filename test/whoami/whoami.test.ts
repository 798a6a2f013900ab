import { describe, expect } from "vitest";
import { callOk } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";

const test = serviceTest({ agents: { "blog-writer": { scopes: ["shared", "blog"], readScopes: ["deploy"] } } });

describe("whoami with a real MCP client", () => {
  test("lists whoami with an output schema and server instructions", async ({ clients: { "blog-writer": client } }) => {
    const { tools } = await client.listTools();
    const whoami = tools.find((t) => t.name === "whoami");
    expect(whoami?.outputSchema).toBeDefined();
    expect(whoami?.annotations?.readOnlyHint).toBe(true);
    expect(client.getInstructions()).toMatch(/memory_recall/);
  });

  test("returns the caller's identity and scopes", async ({ clients: { "blog-writer": client } }) => {
    const me = await callOk(client, "whoami");
    expect(me).toEqual({ name: "blog-writer", kind: "agent", readScopes: ["blog", "deploy", "shared"], writeScopes: ["blog", "shared"] });
  });
});
