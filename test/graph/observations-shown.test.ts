// An answer that shows an entity reads only the observations it shows, in
// insertion order through graph_observations (entity_id, id) (migration
// 000026), not all of the entity's observations to sort them: an entity with
// 50,000 observations cost every open_nodes or search that showed it 78-80 ms
// on Postgres and 300-460 ms embedded. EXPLAIN ANALYZE of the statements the
// store runs, over an entity with 3,000 observations and a budget that shows
// about a hundred: no plan node reads the entity's observations whole, except
// the index-only count behind totalObservations (bounded too since 000036:
// test/graph/kept-bounded.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import * as sql from "../../src/graph/read-sql.js";
import { openNodes } from "../../src/graph/read.js";
import { createEntities } from "../../src/graph/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";
import { type AnalyzedPlanNode, planNodes } from "../support/plans.js";

class Measured extends Error {
  constructor(readonly rows: number) {
    super("measured");
  }
}

const OBSERVATIONS = 3_000;
const BUDGET = 4_000;

describe("showing an entity with many observations (postgres)", () => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["s"] });
    await createEntities(tdb.db, { scope: "s", agentId: agent.id, maxChars: 4096 }, [
      { name: "big-box", entityType: "thing", observations: [] },
      { name: "other-box", entityType: "thing", observations: [] },
    ]);
    // Interleaved with another entity's, so that reading in id order and filtering would read both.
    await loadPastBounds(tdb.db, [
      [
        `insert into graph_observations (entity_id, content, created_by, scope)
         select (select id from graph_entities where name = e), 'observation ' || g, $1, 's'
           from generate_series(1, $2::int) g, unnest(array['big-box', 'other-box']) e order by g, e`,
        [agent.id, OBSERVATIONS],
      ],
    ]);
    await tdb.db.exec("vacuum analyze graph_observations");
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  it("open_nodes reads the observations it shows, and counts the rest from the index alone", async () => {
    const shown = await openNodes(tdb.db, "s", ["big-box"], 2 * BUDGET);
    const entity = shown.entities[0] as { observations: string[]; totalObservations?: number };
    expect(entity.observations.length).toBeGreaterThan(10);
    expect(entity.observations.length).toBeLessThan(400);
    expect(entity.observations[0]).toBe("observation 1");
    expect(entity.totalObservations).toBe(OBSERVATIONS);

    expect(await observationsRead()).toBeLessThanOrEqual(BUDGET);
  });

  it("without the index, the same answer reads every observation of the entity (what the test guards against)", async () => {
    // Dropped inside a transaction that is then rolled back (by throwing), so the index stays.
    const read = await tdb.db
      .transaction(async (tx) => {
        await tx.query("drop index graph_observations_entity_id");
        throw new Measured(await observationsRead(tx));
      })
      .catch((error: unknown) => (error instanceof Measured ? error.rows : Number.NaN));
    expect(read).toBeGreaterThanOrEqual(OBSERVATIONS);
  });

  /** The most rows one plan node reads from graph_observations (kept or filtered out), the index-only count aside. */
  async function observationsRead(db: Pick<TestDatabase["db"], "query"> = tdb.db): Promise<number> {
    const r = await db.query<{ "QUERY PLAN": Array<{ Plan: AnalyzedPlanNode }> }>(`explain (analyze, format json) ${sql.OPEN_NODES}`, ["s", ["big-box"], BUDGET, BUDGET, 10_000]);
    const reads = planNodes(r.rows[0]!["QUERY PLAN"][0]!.Plan).filter((n) => n["Relation Name"] === "graph_observations" && n["Node Type"] !== "Index Only Scan");
    expect(reads.length).toBeGreaterThan(0);
    return Math.max(...reads.map((n) => (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"]));
  }
});
