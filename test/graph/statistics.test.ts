// A graph loaded through the tools gets fresh planner statistics without
// waiting for autovacuum (src/graph/statistics.ts): once the rows written reach
// the threshold, the service runs ANALYZE in the background. Postgres counts
// manual ANALYZEs apart from autovacuum's (pg_stat_user_tables.analyze_count),
// so this cannot pass by autovacuum coming by. Small writes do not trigger it;
// a scope that grew by a quarter does, though the whole graph grew by less.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { graphStatisticsSettled } from "../../src/graph/statistics.js";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

describe("planner statistics after a load through the graph tools (postgres)", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "loader", { scopes: ["shared", "new-project"] })).token);
  });

  const manualAnalyzes = async () =>
    (await tdb.db.query<{ n: number }>("select analyze_count::int as n from pg_stat_user_tables where relname = 'graph_entities'")).rows[0]?.n ?? 0;
  // A write starts its ANALYZE before it answers, and the count is the server's
  // (pg_stat_user_tables, read by another connection): wait for the refresh, then read it.
  const waitForAnalyzes = async (db = tdb.db) => {
    await graphStatisticsSettled(db);
    return manualAnalyzes();
  };
  const load = async (from: number, count: number, client = writer, scope = "shared") => {
    for (let i = from; i < from + count; i += 100) {
      const entities = Array.from({ length: 100 }, (_, k) => ({ name: `service-${i + k}`, entityType: "service", observations: [`owned by team ${(i + k) % 7}`] }));
      await callOk(client, "create_entities", { scope, entities });
    }
  };

  it("analyzes once 1,000 rows were written, and not after a few more", async () => {
    await load(0, 400); // 800 rows: entities and their observations
    expect(await waitForAnalyzes()).toBe(0);
    await load(400, 200); // 1,200 rows in all
    expect(await waitForAnalyzes()).toBe(1);
    const reltuples = (await tdb.db.query<{ n: number }>("select reltuples::int as n from pg_class where relname = 'graph_entities'")).rows[0]!.n;
    expect(reltuples).toBeGreaterThanOrEqual(500);
    // Growth below a quarter of what is stored (and below 1,000 rows) waits.
    await load(600, 100);
    expect(await waitForAnalyzes()).toBe(1);
  });

  it("analyzes when one scope grew by a quarter, though the whole graph grew by less", async () => {
    await load(700, 4300); // "shared" now holds 10,000 rows
    await tdb.db.exec("analyze graph_entities, graph_observations, graph_relations");
    // A second service (its own pool, so its own count of rows written, as after a restart).
    const pool = tdb.openPool(4);
    const second = await startTestService(pool);
    const client = await connectClient(second.mcpUrl, (await addAgent(tdb.db, "loader-2", { scopes: ["shared", "new-project"] })).token);
    // The first service's background ANALYZEs of the load above are over.
    const before = await waitForAnalyzes();
    // 1,000 rows more in the big scope: a tenth of it, and of the graph. Nothing to do.
    await load(5000, 500, client);
    expect(await waitForAnalyzes(pool)).toBe(before);
    // 1,000 rows into a new scope: the graph grew by a fifth in all (2,000 of
    // 10,000, under the quarter), but the new scope's rows were unknown to the planner.
    await load(0, 500, client, "new-project");
    expect(await waitForAnalyzes(pool)).toBe(before + 1);
  });
});
