// Text the database cannot store exactly (NUL, unpaired surrogates) is refused by
// every tool with a message naming the field, and nothing is written — found by
// review: these used to surface as "Internal error".
import { describe, expect } from "vitest";
import { callError, callOk } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";

const test = serviceTest({
  agents: { writer: {} },
  prepare: async ({ clients }) => {
    await callOk(clients.writer, "create_entities", { entities: [{ name: "E", entityType: "t", observations: [] }] });
  },
});

const fact = { name: "a-fact", description: "d", type: "project", body: "b" };

describe("unstorable text in any tool", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["memory_store", { ...fact, body: "a\u0000b" }, "body"],
    ["memory_store", { ...fact, description: "d\ud800" }, "description"],
    ["memory_promote", { name: "a-fact", to: "deprecated", reason: "r\u0000" }, "reason"],
    ["memory_recall", { keywords: ["ok", "x\udc00"] }, "keywords[1]"],
    ["add_observations", { observations: [{ entityName: "E\u0000", contents: ["c"] }] }, "observations[0].entityName"],
    ["search_nodes", { query: "\u0000" }, "query"],
    ["open_nodes", { names: ["E", "\ud83d"] }, "names[1]"],
    ["delete_entities", { entityNames: ["\u0000"] }, "entityNames[0]"],
    ["ledger_list", { actor: "a\u0000" }, "actor"],
    ["ledger_claim", { action: "publish", target: "t\u0000" }, "target"],
  ];
  for (const [tool, args, field] of cases) {
    test(`${tool}: ${field}`, async ({ clients: { writer: client } }) => {
      const text = await callError(client, tool, args);
      expect(text).toContain(`${field} contains a NUL character or broken Unicode`);
      expect(text).not.toMatch(/Internal error/);
    });
  }

  test("wrote nothing", async ({ tdb }) => {
    const counts = await tdb.db.query<{ facts: number; events: number; observations: number }>(
      "select (select count(*) from facts)::int as facts, (select count(*) from ledger_events)::int as events, (select count(*) from graph_observations)::int as observations",
    );
    expect(counts.rows[0]).toEqual({ facts: 0, events: 0, observations: 0 });
  });
});

describe("values out of the database's range", () => {
  test("a C1 control character in a ledger target is refused by the service's own rule", async ({ clients: { writer: client } }) => {
    expect(await callError(client, "ledger_claim", { action: "publish", target: "x\u0085y" })).toMatch(/target must not contain control characters/);
  });

  test("a year the database cannot hold is refused with the accepted range", async ({ clients: { writer: client } }) => {
    expect(await callError(client, "ledger_list", { since: "0000-01-01" })).toMatch(/between the years 1 and 9999/);
  });

  test("a page offset beyond 32 bits is refused by the input schema", async ({ clients: { writer: client } }) => {
    expect(await callError(client, "read_graph", { offset: 3_000_000_000 })).toMatch(/- offset: must be at most \d+ \(got 3000000000\)/);
  });
});
