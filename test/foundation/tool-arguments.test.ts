// tools/call with arguments that are not an object (audit finding 12): the answer
// is the protocol's "invalid params" (-32602) with a short message, not an
// internal error (-32603) carrying a raw validation dump.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { createTestApp, MCP_HEADERS } from "../support/service.js";

let tdb: TestDatabase;
let token: string;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["shared"] });
  token = (await issueToken(tdb.db, "writer", null)).token;
});
afterAll(async () => {
  await tdb?.drop();
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
