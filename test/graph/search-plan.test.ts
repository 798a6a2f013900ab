// Proof that search_nodes does not read whole tables for queries of three or
// more characters: the exact statement the store runs, and the body of the
// match function it calls under that function's own settings, EXPLAINed on
// Postgres over a few thousand analysed rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import * as sql from "../../src/graph/read-sql.js";
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

const QUERIES = ["1a2b", "entity-42", "project", "東京メ", "about"];

describe("search_nodes query plan (postgres, a few thousand rows)", () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["shared"] });
    const w = { scope: "shared", agentId: agent.id, maxChars: 4096 };
    for (let batch = 0; batch < 6; batch++) {
      const entities = Array.from({ length: 500 }, (_, i) => {
        const n = batch * 500 + i;
        return {
          name: `entity-${n}-${(n * 7919).toString(36)}`,
          entityType: ["person", "project", "tool"][n % 3]!,
          observations: [`note ${n} about ${(n * 104729).toString(36)}`, `東京 メモ ${n}`],
        };
      });
      await createEntities(tdb.db, w, entities);
      await createRelations(tdb.db, w, entities.slice(1).map((e, i) => ({ from: entities[i]!.name, to: e.name, relationType: "next" })));
    }
    await tdb.db.exec("analyze");
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const graphSeqScans = (plan: PlanNode[]) => plan.filter((n) => n["Node Type"] === "Seq Scan" && n["Relation Name"]?.startsWith("graph_"));

  async function explain(statement: string, params: unknown[], settings: string[] = []): Promise<PlanNode[]> {
    return tdb.db.transaction(async (tx) => {
      for (const setting of settings) await tx.query(`set local ${setting}`);
      const r = await tx.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${statement}`, params);
      return nodes(r.rows[0]!["QUERY PLAN"][0]!.Plan);
    });
  }

  it.each(QUERIES)("the search statement for %s reads no graph table whole", async (query) => {
    const plan = await explain(sql.SEARCH_NODES, ["shared", likePattern(query), 1000, 0, 500_000, 500_000]);
    expect(plan.some((n) => n["Node Type"] === "Function Scan")).toBe(true);
    expect(graphSeqScans(plan)).toEqual([]);
  });

  it.each(QUERIES)("the match function for %s uses the three trigram indexes", async (query) => {
    const fn = (await tdb.db.query<{ body: string; config: string[] }>("select prosrc as body, proconfig as config from pg_proc where proname = 'am_graph_match'")).rows[0]!;
    expect(fn.config).toEqual(["enable_seqscan=off"]);
    const plan = await explain(fn.body, [likePattern(query)], fn.config);
    expect(graphSeqScans(plan)).toEqual([]);
    const indexes = plan.map((n) => n["Index Name"]).filter(Boolean);
    expect(indexes).toEqual(expect.arrayContaining(["graph_entities_name_trgm", "graph_entities_type_trgm", "graph_observations_content_trgm"]));
  });

  // (Whether the planner would read the tables whole without the function's
  // setting depends on GIN pending lists and autovacuum timing, so it is not
  // asserted; on this data it usually does.)
  it("ran on the data it was meant for: 3,000 entities and 6,000 observations", async () => {
    expect((await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_entities")).rows[0]!.n).toBe(3000);
    expect((await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_observations")).rows[0]!.n).toBe(6000);
  });
});
