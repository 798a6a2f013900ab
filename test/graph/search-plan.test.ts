// Proof that search_nodes does not read whole tables for queries of three or
// more characters: the exact statement and settings the store uses, EXPLAINed on
// Postgres over a few thousand analysed rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import * as sql from "../../src/graph/sql.js";
import { likePattern } from "../../src/graph/validate.js";
import { createEntities, createRelations } from "../../src/graph/write-store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe("search_nodes query plan (postgres, a few thousand rows)", () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["shared"] });
    const w = { scope: "shared", agentId: agent.id, maxChars: 4096 };
    for (let batch = 0; batch < 6; batch++) {
      const entities = Array.from({ length: 500 }, (_, i) => {
        const n = batch * 500 + i;
        return { name: `entity-${n}-${(n * 7919).toString(36)}`, entityType: ["person", "project", "tool"][n % 3]!, observations: [`note ${n} about ${(n * 104729).toString(36)}`, `東京 メモ ${n}`] };
      });
      await createEntities(tdb.db, w, entities);
      await createRelations(tdb.db, w, entities.slice(1).map((e, i) => ({ from: entities[i]!.name, to: e.name, relationType: "next" })));
    }
    await tdb.db.exec("analyze");
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  async function planOf(query: string): Promise<PlanNode[]> {
    return tdb.db.transaction(async (tx) => {
      await tx.query(sql.READ_SNAPSHOT);
      await tx.query(sql.PREFER_INDEXES);
      const r = await tx.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${sql.SEARCH_ENTITIES}`, ["shared", likePattern(query), 1000, 0]);
      return nodes(r.rows[0]!["QUERY PLAN"][0]!.Plan);
    });
  }

  it.each(["1a2b", "entity-42", "project", "東京メ", "about"])("query %s uses the three trigram indexes and scans no graph table whole", async (query) => {
    const plan = await planOf(query);
    const seqScans = plan.filter((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"]?.startsWith("graph_"));
    expect(seqScans).toEqual([]);
    const indexes = plan.map((n) => n["Index Name"]).filter(Boolean);
    expect(indexes).toEqual(expect.arrayContaining(["graph_entities_name_trgm", "graph_entities_type_trgm", "graph_observations_content_trgm"]));
  });

  it("the store's graph has the rows the plans were made for", async () => {
    const n = (await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_observations")).rows[0]!.n;
    expect(n).toBe(6000);
  });
});
