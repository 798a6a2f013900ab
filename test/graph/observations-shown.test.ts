// An answer that shows an entity reads only the observations it shows, in
// insertion order through graph_observations (entity_id, id), not all of the
// entity's observations to sort them: an entity with 50,000 observations cost
// every open_nodes or search that showed it 78-80 ms on Postgres and 300-460
// ms embedded. Counted over an entity with 3,000 observations (stored before
// the per-entity bound) and a budget that shows about a hundred: no plan node
// of open_nodes' statements (auto_explain) reads the entity's observations
// whole; totalObservations is the count kept as rows are written.
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { openNodes } from "../../src/graph/read.js";
import { createEntities } from "../../src/graph/store.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { loadPastBounds } from "../support/graph-bulk.js";
import * as sql from "../../src/graph/read-sql.js";
import { nestedPlans, planNodes } from "../support/plans.js";

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

  it("open_nodes reads the observations it shows, and says how many there are", async () => {
    const shown = await openNodes(tdb.db, "s", ["big-box"], 2 * BUDGET);
    const entity = shown.entities[0] as { observations: string[]; totalObservations?: number };
    expect(entity.observations.length).toBeGreaterThan(10);
    expect(entity.observations.length).toBeLessThan(400);
    expect(entity.observations[0]).toBe("observation 1");
    expect(entity.totalObservations).toBe(OBSERVATIONS);

    expect(await observationsRead()).toBeLessThanOrEqual(BUDGET);
  });

  /** The most rows one plan node of open_nodes read from graph_observations. */
  async function observationsRead(): Promise<number> {
    const nodes = (await nestedPlans(tdb.url!, sql.GRAPH_OPEN, ["s", ["big-box"], BUDGET, BUDGET, 10_000], { analyze: true })).flatMap((p) => planNodes(p));
    const reads = nodes.filter((n) => n["Relation Name"] === "graph_observations");
    expect(reads.length).toBeGreaterThan(0);
    return Math.max(...reads.map((n) => (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"]));
  }
});
