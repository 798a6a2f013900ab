// One scripted sequence of calls, run against the reference server
// (@modelcontextprotocol/server-memory over stdio, its own fresh JSONL file) and
// against this service over HTTP: every answer must be the same, text and
// structured. Both keep insertion order, so nothing needs reordering.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { closeWhenFileEnds, tempDirForFile } from "../support/file-teardown.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const REFERENCE = path.join(ROOT, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");

type Step = [tool: string, args: Record<string, unknown>];

const alice = { name: "Alice", entityType: "person", observations: ["works at Acme", "speaks Japanese"] };
const bob = { name: "Bob", entityType: "person", observations: ["likes tea"] };
const tokyo = { name: "東京", entityType: "都市", observations: ["日本の首都", "人口は約1400万人"] };
const seoul = { name: "서울", entityType: "도시", observations: ["대한민국의 수도"] };
const odd = { name: "100%_sure\\path", entityType: "Weird_Type", observations: ["contains % and _ and \\ literally", "🚀 emoji"] };

const SCRIPT: Step[] = [
  ["read_graph", {}],
  ["search_nodes", { query: "anything" }],
  ["open_nodes", { names: ["Alice"] }],
  ["create_entities", { entities: [alice, bob, tokyo, seoul] }],
  // Alice exists: only Carol is created.
  ["create_entities", { entities: [{ ...alice, observations: ["ignored"] }, { name: "Carol", entityType: "person", observations: [] }] }],
  ["create_entities", { entities: [] }],
  [
    "create_relations",
    {
      relations: [
        { from: "Alice", to: "Bob", relationType: "works_with" },
        { from: "Alice", to: "東京", relationType: "visited" },
        { from: "Bob", to: "서울", relationType: "lives_in" },
        { from: "Carol", to: "Ghost", relationType: "knows" },
        { from: "Ghost1", to: "Ghost2", relationType: "haunts" },
      ],
    },
  ],
  // The first is a duplicate and skipped; the reverse direction is a new relation.
  [
    "create_relations",
    {
      relations: [
        { from: "Alice", to: "Bob", relationType: "works_with" },
        { from: "Bob", to: "Alice", relationType: "works_with" },
      ],
    },
  ],
  ["create_relations", { relations: [] }],
  // Already-present texts are skipped; Tokyo gains one.
  [
    "add_observations",
    {
      observations: [
        { entityName: "Alice", contents: ["speaks Japanese", "drinks coffee"] },
        { entityName: "東京", contents: ["日本の首都", "渋谷がある"] },
      ],
    },
  ],
  // A missing entity fails the call and nothing of it is written.
  ["add_observations", { observations: [{ entityName: "Alice", contents: ["must not be stored"] }, { entityName: "Nobody", contents: ["x"] }] }],
  // The same entity twice in one call: the second item sees what the first added.
  ["add_observations", { observations: [{ entityName: "Bob", contents: ["plays go"] }, { entityName: "Bob", contents: ["plays go", "sings"] }] }],
  ["add_observations", { observations: [] }],
  ["create_entities", { entities: [odd, { name: "alice", entityType: "cat", observations: ["lowercase name, a different entity"] }] }],
  ["read_graph", {}],
  ["search_nodes", { query: "ALICE" }],
  ["search_nodes", { query: "japanese" }],
  ["search_nodes", { query: "PERSON" }],
  ["search_nodes", { query: "首都" }],
  ["search_nodes", { query: "東" }],
  ["search_nodes", { query: "대한민국" }],
  ["search_nodes", { query: "%" }],
  ["search_nodes", { query: "_" }],
  ["search_nodes", { query: "\\" }],
  ["search_nodes", { query: "🚀" }],
  ["search_nodes", { query: "ghost" }],
  ["search_nodes", { query: "no such thing" }],
  ["search_nodes", { query: "" }],
  ["open_nodes", { names: ["서울", "Missing", "Alice"] }],
  ["open_nodes", { names: ["Ghost1", "Ghost2"] }],
  ["open_nodes", { names: ["Carol"] }],
  ["open_nodes", { names: [] }],
  [
    "delete_observations",
    {
      deletions: [
        { entityName: "Alice", observations: ["drinks coffee", "never said"] },
        { entityName: "Missing", observations: ["x"] },
        { entityName: "東京", observations: ["日本の首都"] },
      ],
    },
  ],
  [
    "delete_relations",
    {
      relations: [
        { from: "Alice", to: "東京", relationType: "visited" },
        { from: "Alice", to: "Nobody", relationType: "visited" },
      ],
    },
  ],
  ["read_graph", {}],
  // Cascades: Bob's relations (both directions) go, and so does the relation
  // from Ghost1, although no entity Ghost1 exists.
  ["delete_entities", { entityNames: ["Bob", "Missing", "Ghost1"] }],
  ["read_graph", {}],
  ["open_nodes", { names: ["Bob"] }],
  // Re-created after deletion: it comes back at the end, with no old observations.
  ["create_entities", { entities: [{ name: "Bob", entityType: "robot", observations: ["rebuilt"] }] }],
  ["create_relations", { relations: [{ from: "Bob", to: "Alice", relationType: "works_with" }] }],
  ["delete_entities", { entityNames: [] }],
  ["delete_observations", { deletions: [] }],
  ["delete_relations", { relations: [] }],
  ["search_nodes", { query: "o" }],
  ["read_graph", {}],
];

// Fields only this service adds; the reference has none of them.
const OUR_EXTRAS = new Set(["createdBy", "createdAt", "observationsMeta", "totalEntities", "offset", "limit", "truncated", "nextOffset", "deleted"]);

function withoutExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutExtras);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !OUR_EXTRAS.has(k)).map(([k, v]) => [k, withoutExtras(v)]));
  }
  return value;
}

describe("compatibility with @modelcontextprotocol/server-memory", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let ours: Client;
  let reference: Client;
  let dir: string;

  beforeAll(async () => {
    dir = await tempDirForFile("am-graph-ref-");
    reference = new McpClient({ name: "compat", version: "1.0.0" });
    await reference.connect(
      new StdioClientTransport({ command: process.execPath, args: [REFERENCE], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }, stderr: "ignore" }),
    );
    closeWhenFileEnds(() => reference.close());
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db);
    const agent = await addAgent(tdb.db, "compat-agent");
    ours = await connectClient(service, agent.token);
  });

  it("lists the same nine tools with the same annotations and the same input fields (plus optional extras)", async () => {
    const theirs = (await reference.listTools()).tools;
    const mine = (await ours.listTools()).tools;
    expect(theirs).toHaveLength(9);
    for (const t of theirs) {
      const m = mine.find((x) => x.name === t.name);
      expect(m, t.name).toBeDefined();
      expect(m!.title).toBe(t.title);
      const { title: _a, ...theirAnnotations } = t.annotations ?? {};
      const { title: _b, ...myAnnotations } = m!.annotations ?? {};
      expect(myAnnotations, t.name).toEqual(theirAnnotations);
      expect(m!.inputSchema.required ?? [], t.name).toEqual(t.inputSchema.required ?? []);
      for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        expect(withoutExtras(m!.inputSchema.properties?.[field]), `${t.name}.${field}`).toEqual(schema);
      }
      const extras = Object.keys(m!.inputSchema.properties ?? {}).filter((k) => !(k in (t.inputSchema.properties ?? {})));
      expect(extras.every((k) => ["scope", "limit", "offset", "cursor"].includes(k)), `${t.name} extras ${extras.join()}`).toBe(true);
      expect(Object.keys(m!.outputSchema?.properties ?? {})).toEqual(expect.arrayContaining(Object.keys(t.outputSchema?.properties ?? {})));
    }
  });

  it("answers the scripted sequence exactly as the reference does", async () => {
    for (const [index, [tool, args]] of SCRIPT.entries()) {
      const label = `step ${index} ${tool} ${JSON.stringify(args).slice(0, 80)}`;
      const theirs = (await reference.callTool({ name: tool, arguments: args })) as CallToolResult;
      const mine = (await ours.callTool({ name: tool, arguments: args })) as CallToolResult;
      expect(Boolean(mine.isError), label).toBe(Boolean(theirs.isError));
      if (theirs.isError) {
        // Same words first; ours then says what to do.
        expect(textOf(mine).startsWith(textOf(theirs)), `${label}: "${textOf(mine)}" vs "${textOf(theirs)}"`).toBe(true);
        continue;
      }
      expect(textOf(mine), label).toBe(textOf(theirs));
      expect(withoutExtras(mine.structuredContent), label).toEqual(theirs.structuredContent);
    }
  });
});
