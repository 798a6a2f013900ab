// The graph tools over real HTTP: bad input is refused with nothing written,
// scopes are enforced, big answers are cut with a note, provenance is served.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect } from "vitest";
import type { TestDatabase } from "../support/databases.js";
import { callError, callOk, textOf } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";

// Bodies up to 4 MiB reach the tool, so the tool's own size limit is what answers.
const test = serviceTest({
  agents: { "graph-writer": { scopes: ["shared", "team"] }, "graph-reader": { scopes: ["own"] } },
  env: { MAX_BODY_BYTES: String(4 * 1024 * 1024) },
});

describe("graph tools over HTTP", () => {
  const rowCounts = async (tdb: TestDatabase) =>
    (
      await tdb.db.query<{ e: number; o: number; r: number }>(
        "select (select count(*) from graph_entities)::int as e, (select count(*) from graph_observations)::int as o, (select count(*) from graph_relations)::int as r",
      )
    ).rows[0]!;

  test("refuses bad input with isError and writes nothing", async ({ clients: { "graph-writer": writer }, tdb }) => {
    const before = await rowCounts(tdb);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["create_entities", {}, /create_entities was not run .*\n- entities is required/],
      ["create_entities", { entities: [{ name: "x", entityType: "t" }] }, /observations/],
      ["create_entities", { entities: [{ name: 42, entityType: "t", observations: [] }] }, /name/],
      ["create_entities", { entities: "not an array" }, /entities/],
      ["create_entities", { entities: [{ name: "ok", entityType: "t", observations: [] }, { name: "", entityType: "t", observations: [] }] }, /entities\[1\]\.name is empty/],
      ["create_entities", { entities: [{ name: "big", entityType: "t", observations: ["x".repeat(1024 * 1024)] }] }, /observations\[0\] is 1048576 characters long; the limit is 4096/],
      ["create_entities", { entities: [{ name: "s", entityType: "t", observations: [] }], scope: "Not A Scope" }, /scope "Not A Scope" is not valid/],
      ["create_relations", { relations: [{ from: "a", to: "b" }] }, /relationType/],
      ["create_relations", { relations: [{ from: "", to: "b", relationType: "r" }] }, /relations\[0\]\.from is empty/],
      ["add_observations", { observations: [{ entityName: "a" }] }, /contents/],
      ["delete_entities", { entityNames: "a" }, /entityNames/],
      ["search_nodes", {}, /query/],
      ["search_nodes", { query: "x", limit: 0 }, /limit/],
      ["read_graph", { offset: -1 }, /offset/],
      ["open_nodes", { names: [1, 2] }, /names/],
    ];
    for (const [tool, args, message] of cases) {
      expect(await callError(writer, tool, args), `${tool} ${JSON.stringify(args).slice(0, 60)}`).toMatch(message);
    }
    await callOk(writer, "create_entities", { entities: [{ name: "target", entityType: "t", observations: [] }] });
    expect(await callError(writer, "add_observations", { observations: [{ entityName: "target", contents: ["y".repeat(1024 * 1024)] }] })).toMatch(
      /observations\[0\]\.contents\[0\] is 1048576 characters long/,
    );
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ entityName: "target", contents: [`c${i}`] }));
    expect(await callError(writer, "add_observations", { observations: tooMany })).toMatch(/observations has 1001 items; at most 1000/);
    const after = await rowCounts(tdb);
    expect(after).toEqual({ ...before, e: before.e + 1 });
  });

  test("keeps scopes apart and enforces read and write access", async ({ clients: { "graph-writer": writer, "graph-reader": reader } }) => {
    await callOk(writer, "create_entities", { entities: [{ name: "secret", entityType: "t", observations: ["team only"] }], scope: "team" });
    expect(await callError(reader, "read_graph", { scope: "team" })).toMatch(/may not read scope "team"/);
    expect(await callError(reader, "create_entities", { entities: [{ name: "n", entityType: "t", observations: [] }] })).toMatch(/may not write to scope "shared"/);
    expect(await callError(writer, "delete_entities", { entityNames: ["secret"], scope: "own" })).toMatch(/may not write to scope "own"/);
    // shared is readable by everyone; the team entity is not in it.
    const shared = await callOk<{ entities: Array<{ name: string }> }>(reader, "search_nodes", { query: "secret" });
    expect(shared.entities).toEqual([]);
    const team = await callOk<{ entities: Array<{ name: string }> }>(writer, "search_nodes", { query: "secret", scope: "team" });
    expect(team.entities.map((e) => e.name)).toEqual(["secret"]);
  });

  test("serves provenance in open_nodes structured output only; the text stays the reference's", async ({ clients: { "graph-writer": writer } }) => {
    await callOk(writer, "create_relations", { relations: [{ from: "secret", to: "target", relationType: "guards" }], scope: "team" });
    const result = (await writer.callTool({ name: "open_nodes", arguments: { names: ["secret"], scope: "team" } })) as CallToolResult;
    expect(result.structuredContent).toEqual({
      entities: [
        {
          name: "secret",
          entityType: "t",
          observations: ["team only"],
          createdBy: "graph-writer",
          createdAt: expect.any(String),
          observationsMeta: [{ createdBy: "graph-writer", createdAt: expect.any(String) }],
        },
      ],
      relations: [{ from: "secret", to: "target", relationType: "guards", createdBy: "graph-writer", createdAt: expect.any(String) }],
    });
    expect(JSON.parse(textOf(result))).toEqual({
      entities: [{ name: "secret", entityType: "t", observations: ["team only"] }],
      relations: [{ from: "secret", to: "target", relationType: "guards" }],
    });
  });

  test("cuts big answers, says so in the text, and pages on with offset", async ({ clients: { "graph-writer": writer } }) => {
    const entities = Array.from({ length: 30 }, (_, i) => ({ name: `p${String(i).padStart(2, "0")}`, entityType: "paged", observations: [] }));
    await callOk(writer, "create_entities", { entities, scope: "team" });
    const first = (await writer.callTool({ name: "search_nodes", arguments: { query: "paged", scope: "team", limit: 20 } })) as CallToolResult;
    expect(first.structuredContent).toMatchObject({ totalEntities: 30, truncated: true, nextOffset: 20, limit: 20, offset: 0 });
    const text = JSON.parse(textOf(first)) as { note: string; entities: unknown[] };
    expect(text.note).toMatch(/entities 1-20 of 30, cut at limit 20.*call search_nodes again with the same arguments and offset 20/);
    expect(text.entities).toHaveLength(20);
    const second = await callOk(writer, "search_nodes", { query: "paged", scope: "team", limit: 20, offset: 20 });
    expect(second).toMatchObject({ totalEntities: 30, truncated: false });
    expect((second.entities as unknown[]).length).toBe(10);
    const whole = await callOk(writer, "read_graph", { scope: "team" });
    expect(whole).toMatchObject({ totalEntities: 31, truncated: false });
  });
});
