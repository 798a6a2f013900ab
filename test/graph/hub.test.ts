// The review's scenario over HTTP with a 1,000,000-character budget: one
// entity "Hub" with as many relations as a name may have (1,000, five calls of
// 200) to names of 4,000 characters. Uncut, each of read_graph, search_nodes
// and open_nodes would answer ~4 MB of text plus as much structured content;
// each answer stays near GRAPH_ANSWER_MAX_CHARS and read_relations, fed
// nextRelations, returns every relation exactly once.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";

const ANSWER_MAX_CHARS = 1_000_000;
const spoke = (i: number) => `spoke-${i}-`.padEnd(4000, "x");
const SPOKES = 1000;

interface Relation {
  from: string;
  to: string;
  relationType: string;
}
interface CutAnswer {
  relations: Relation[];
  relationsTruncated?: boolean;
  totalRelations?: number;
  nextRelations?: Record<string, unknown> & { offset: number };
}

describe("the Hub scenario over HTTP, a 1,000,000-character answer budget", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let client: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db, { GRAPH_ANSWER_MAX_CHARS: String(ANSWER_MAX_CHARS) });
    client = await connectClient(service, (await addAgent(tdb.db, "hub-writer")).token);
    await callOk(client, "create_entities", { entities: [{ name: "Hub", entityType: "hub", observations: [] }] });
    for (let k = 0; k < SPOKES / 200; k++) {
      await callOk(client, "create_relations", { relations: Array.from({ length: 200 }, (_, i) => ({ from: "Hub", to: spoke(k * 200 + i), relationType: "links" })) });
    }
  });

  async function call(name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    const text = textOf(result);
    // Bytes = characters here (ASCII); a little over the budget: the crossing item and the note.
    expect(Buffer.byteLength(text), `${name} text`).toBeLessThan(ANSWER_MAX_CHARS * 1.02);
    expect(Buffer.byteLength(JSON.stringify(result.structuredContent)), `${name} structured`).toBeLessThan(ANSWER_MAX_CHARS * 1.02);
    return { text, structured: result.structuredContent as unknown as CutAnswer };
  }

  it("read_graph, search_nodes and open_nodes answer about half a megabyte each, say what was cut, and point to the rest", async () => {
    for (const [tool, args, names] of [
      ["read_graph", { limit: 1 }, undefined],
      ["search_nodes", { query: "Hub", limit: 1 }, ["Hub"]],
      ["open_nodes", { names: ["Hub"] }, ["Hub"]],
    ] as const) {
      const { text, structured } = await call(tool, args);
      expect(structured.relations.length, tool).toBeGreaterThan(100);
      expect(structured.relations.length, tool).toBeLessThan(130);
      expect(structured, tool).toMatchObject({
        relationsTruncated: true,
        totalRelations: SPOKES,
        nextRelations: { scope: "shared", offset: structured.relations.length, ...(names ? { names } : {}) },
      });
      const parsed = JSON.parse(text) as CutAnswer & { note: string };
      expect(parsed.note, tool).toContain(`This answer holds ${structured.relations.length} of ${SPOKES} relations`);
      expect(parsed.nextRelations, tool).toEqual(structured.nextRelations);
    }
  });

  it("read_relations, fed nextRelations and then nextOffset, returns every relation exactly once, in creation order", async () => {
    const first = (await call("read_graph", { limit: 1 })).structured;
    const seen = first.relations.map((r) => r.to);
    let args: Record<string, unknown> | undefined = first.nextRelations;
    let pages = 0;
    while (args) {
      const page = (await call("read_relations", args)).structured as CutAnswer & { nextOffset?: number; totalRelations: number };
      expect(page.totalRelations).toBe(SPOKES);
      seen.push(...page.relations.map((r) => r.to));
      args = page.nextOffset === undefined ? undefined : { ...args, offset: page.nextOffset };
      pages++;
    }
    expect(pages).toBeGreaterThan(3);
    expect(seen).toEqual(Array.from({ length: SPOKES }, (_, i) => spoke(i)));
  });

  it("lists read_relations and read_observations as read-only tools with output schemas and described inputs", async () => {
    const { tools } = await client.listTools();
    for (const name of ["read_relations", "read_observations"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool?.annotations, name).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false });
      for (const [field, schema] of Object.entries(tool?.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${name}.${field}`).toBeTruthy();
      }
    }
    const observations = await callOk(client, "read_observations", { name: "Hub" });
    expect(observations).toEqual({ name: "Hub", entityType: "hub", observations: [], observationsMeta: [], totalObservations: 0, offset: 0, limit: 1000, truncated: false });
  });
});
