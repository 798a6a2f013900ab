// tools/call with arguments that are not an object (audit finding 12): the answer
// is the protocol's "invalid params" (-32602) with a short message, not an
// internal error (-32603) carrying a raw validation dump. Arguments that are an
// object but wrong: one tool error listing every problem in the service's words,
// an unknown argument refused by name, nothing written.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callError, callOk, connectClient, createTestApp, MCP_HEADERS, startInProcessService, type InProcessService } from "../support/service.js";

let tdb: TestDatabase;
let token: string;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
  token = (await issueToken(tdb.db, "writer", null)).token;
});

describe("tools/call with arguments that are not an object", () => {
  for (const [label, args] of [
    ["an array", []],
    ["a string", "x"],
    ["a number", 3],
    ["null", null],
  ] as const) {
    it(`answers -32602 with a short message for ${label}`, async () => {
      const { app } = await createTestApp(tdb.db);
      const res = await request(app)
        .post("/mcp")
        .set(MCP_HEADERS)
        .set("Authorization", `Bearer ${token}`)
        .send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "whoami", arguments: args } });
      expect(res.body.id).toBe(7);
      expect(res.body.error?.code).toBe(-32602);
      expect(res.body.error.message).toMatch(/arguments must be a JSON object/);
      expect(res.body.error.message.length).toBeLessThan(200);
      expect(JSON.stringify(res.body)).not.toMatch(/invalid_type|"path"|expected/);
    });
  }

  it("still answers a call without arguments", async () => {
    const { app } = await createTestApp(tdb.db);
    const res = await request(app)
      .post("/mcp")
      .set(MCP_HEADERS)
      .set("Authorization", `Bearer ${token}`)
      .send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "whoami" } });
    expect(res.body.result.structuredContent).toMatchObject({ name: "writer" });
  });
});

describe("tools/call with wrong arguments, over a real MCP client", () => {
  let service: InProcessService;
  let client: Client;

  beforeAll(async () => {
    service = await startInProcessService(tdb.db);
    client = await connectClient(service, token);
  });

  it("lists every problem of a memory_store call in one answer, with the allowed values", async () => {
    const result = (await client.callTool({
      name: "memory_store",
      arguments: { name: "My Fact", description: "two\nlines", type: "note", body: 7, version: "2" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^memory_store was not run \(5 problems with its arguments; fix all and call again\):/);
    expect(text).toContain('- type: must be one of feedback, project, reference (got "note")');
    expect(text).toContain('- name "My Fact" is not valid: use a kebab-case slug');
    expect(text).toContain("- description must be a single line");
    expect(text).toContain("- body: must be text (got 7)");
    expect(text).toContain('- version: must be a number (got "2")');
    expect(text).not.toMatch(/MCP error|Input validation error|Invalid option/);
  });

  it("names missing arguments and bounds, for every tool alike", async () => {
    const text = await callError(client, "ledger_claim", { ttlSeconds: 1 });
    expect(text).toContain("- action is required");
    expect(text).toContain("- target is required");
    expect(text).toMatch(/- ttlSeconds: must be at least \d+ \(got 1\)/);
    expect(await callError(client, "memory_recall", { keywords: [] })).toContain("- keywords: must have at least 1 item (got a list of 0)");
    expect(await callError(client, "create_entities", { entities: [{ name: "a", entityType: 3 }] })).toContain(
      "- entities[0].entityType: must be text (got 3)",
    );
  });

  it("refuses an unknown argument by name with the closest known one, and writes nothing", async () => {
    const text = await callError(client, "memory_store", {
      name: "typo-arg",
      description: "A fact sent with a misspelled argument",
      tpye: "project",
      type: "project",
      body: "Body.",
    });
    expect(text).toContain("- unknown argument `tpye`; did you mean `type`?");
    expect(text).toMatch(/one problem/);
    const listed = await callOk<{ facts: unknown[] }>(client, "memory_list", {});
    expect(listed.facts).toEqual([]);
    expect(await callError(client, "whoami", { verbose: true })).toContain("- unknown argument `verbose`; this tool takes no arguments");
    expect(await callError(client, "ledger_check", { action: "deploy", target: "x", zzz: 1 })).toContain(
      "- unknown argument `zzz`; the arguments are action, target",
    );
  });

  it("keeps the list short when a call has many problems", async () => {
    const entities = Array.from({ length: 50 }, () => ({ name: 1, entityType: 2, observations: "x" }));
    const text = await callError(client, "create_entities", { entities });
    expect(text).toMatch(/^create_entities was not run \(150 problems with its arguments/);
    expect(text.split("\n")).toHaveLength(22);
    expect(text).toMatch(/- … and 130 more$/);
  });

  it("advertises that unknown arguments are refused", async () => {
    const { tools } = await client.listTools();
    const store = tools.find((t) => t.name === "memory_store")!;
    expect(store.inputSchema).toMatchObject({ type: "object", additionalProperties: false, required: ["name", "description", "type", "body"] });
    expect(Object.keys(store.inputSchema.properties ?? {})).toEqual(["name", "description", "type", "body", "scope", "version", "supersedes"]);
  });
});
