// A graph read that finds nothing in the scope it asked says which other
// readable scopes would have answered (with counts and the argument to pass),
// and never names a scope the caller cannot read. Over a real MCP client, and
// the lookups themselves on both databases.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { graphsElsewhere, namesElsewhere, OTHER_SCOPES_CHECKED, searchElsewhere } from "../../src/graph/other-scopes.js";
import { createEntities } from "../../src/graph/store.js";
import { addCaller } from "../facts/helpers.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";

let tdb: TestDatabase;
let service: InProcessService;
let writer: Client;
let admin: Client;

interface Answer {
  entities: Array<{ name: string }>;
  otherScopes?: Array<{ scope: string; matches: number; matchesIsLowerBound?: true }>;
}

async function call(client: Client, tool: string, args: Record<string, unknown>): Promise<{ text: string; structured: Answer }> {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  expect(result.isError, textOf(result)).toBeFalsy();
  return { text: textOf(result), structured: result.structuredContent as unknown as Answer };
}

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  service = await startInProcessService(tdb.db);
  writer = await connectClient(service, (await addAgent(tdb.db, "blog-writer", { scopes: ["shared", "blog"] })).token);
  admin = await connectClient(service, (await addAgent(tdb.db, "admin", { kind: "human", scopes: ["*"] })).token);
  await callOk(writer, "create_entities", {
    scope: "blog",
    entities: [
      { name: "Alice", entityType: "editor", observations: ["edits the blog"] },
      { name: "Carol", entityType: "editor", observations: ["edits on Fridays"] },
      { name: "Dave", entityType: "reader", observations: [] },
    ],
  });
  await callOk(admin, "create_entities", { scope: "hr", entities: [{ name: "Bob", entityType: "editor", observations: ["salary band 4"] }] });
});

describe("graph reads that find nothing in the scope asked", () => {
  it("search_nodes names the readable scopes that match, with counts and the argument to pass", async () => {
    const { text, structured } = await call(writer, "search_nodes", { query: "editor" });
    expect(structured.entities).toEqual([]);
    expect(structured.otherScopes).toEqual([{ scope: "blog", matches: 2 }]);
    expect(JSON.parse(text)).toMatchObject({ entities: [], relations: [], otherScopes: [{ scope: "blog", matches: 2 }] });
    expect(text).toContain('Call search_nodes again with scope: \\"blog\\"');
    // Following the hint finds them.
    expect((await call(writer, "search_nodes", { query: "editor", scope: "blog" })).structured.entities.map((e) => e.name)).toEqual(["Alice", "Carol"]);
  });

  it("never names a scope the caller cannot read, even when only that scope matches", async () => {
    for (const [tool, args] of [
      ["search_nodes", { query: "editor" }],
      ["search_nodes", { query: "salary" }],
      ["open_nodes", { names: ["Bob"] }],
      ["read_graph", {}],
    ] as const) {
      const { text, structured } = await call(writer, tool, args);
      expect(text, tool).not.toContain("hr");
      expect(JSON.stringify(structured), tool).not.toContain('"hr"');
    }
    // Only "hr" has a match: the answer is the reference's plain empty graph.
    const salary = await call(writer, "search_nodes", { query: "salary" });
    expect(JSON.parse(salary.text)).toEqual({ entities: [], relations: [] });
    expect(salary.structured.otherScopes).toBeUndefined();
  });

  it("a reader of every scope hears of every scope that matches", async () => {
    const { structured } = await call(admin, "search_nodes", { query: "editor" });
    expect(structured.otherScopes).toEqual([
      { scope: "blog", matches: 2 },
      { scope: "hr", matches: 1 },
    ]);
  });

  it("open_nodes and read_graph say where the names and the graphs are", async () => {
    const open = await call(writer, "open_nodes", { names: ["Alice", "Dave", "Nobody"] });
    expect(open.structured.otherScopes).toEqual([{ scope: "blog", matches: 2 }]);
    expect(open.text).toContain('Call open_nodes again with scope: \\"blog\\"');
    const read = await call(writer, "read_graph", {});
    expect(read.structured.otherScopes).toEqual([{ scope: "blog", matches: 3 }]);
    expect(read.text).toContain('Scope \\"shared\\" has no entities');
  });

  it("says nothing more when the scope asked has a match, or nothing matches anywhere", async () => {
    await callOk(writer, "create_entities", { entities: [{ name: "Eve", entityType: "editor", observations: [] }] });
    const shared = await call(writer, "search_nodes", { query: "editor" });
    expect(shared.structured.entities.map((e) => e.name)).toEqual(["Eve"]);
    expect(shared.structured.otherScopes).toBeUndefined();
    const none = await call(writer, "search_nodes", { query: "no-such-thing" });
    expect(JSON.parse(none.text)).toEqual({ entities: [], relations: [] });
  });

  it(`looks at no more than ${OTHER_SCOPES_CHECKED} other scopes`, async () => {
    const scopes = Array.from({ length: OTHER_SCOPES_CHECKED + 3 }, (_, i) => `team-${String(i).padStart(2, "0")}`);
    for (const scope of scopes) await callOk(admin, "create_entities", { scope, entities: [{ name: "Zed", entityType: "widget", observations: [] }] });
    const { structured } = await call(admin, "search_nodes", { query: "widget" });
    // In name order, "blog" and "hr" (no widget there) are two of the scopes looked at.
    expect(structured.otherScopes!.map((o) => o.scope)).toEqual(scopes.slice(0, OTHER_SCOPES_CHECKED - 2));
  });
});

describe.each(BACKENDS)("the other-scopes lookups on %s", (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    const writer = await addCaller(db.db, "w", { scopes: ["shared", "blog", "hr"] });
    const write = (scope: string, entities: Array<{ name: string; entityType: string; observations: string[] }>) =>
      createEntities(db.db, { scope, agentId: writer.agentId, maxChars: 4096 }, entities);
    await write("blog", [
      { name: "Alice", entityType: "editor", observations: ["edits"] },
      { name: "Dave", entityType: "reader", observations: [] },
    ]);
    await write("hr", [{ name: "Bob", entityType: "editor", observations: [] }]);
  });

  it("finds matches, names and graphs only in the caller's readable scopes", async () => {
    const reader = await addCaller(db.db, `r-${backend}`, { scopes: ["shared", "blog"] });
    expect(await searchElsewhere(db.db, reader, "shared", "editor", 100_000)).toEqual([{ scope: "blog", matches: 1 }]);
    expect(await namesElsewhere(db.db, reader, "shared", ["Alice", "Bob", "Dave"])).toEqual([{ scope: "blog", matches: 2 }]);
    expect(await graphsElsewhere(db.db, reader, "shared")).toEqual([{ scope: "blog", matches: 2 }]);
    const everyScope = await addCaller(db.db, `all-${backend}`, { kind: "human", scopes: ["*"] });
    expect(await searchElsewhere(db.db, everyScope, "blog", "editor", 100_000)).toEqual([{ scope: "hr", matches: 1 }]);
  });
});
