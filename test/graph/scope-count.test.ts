// read_graph's total is each scope's entity count, kept by statement triggers
// as entities are written (graph_scope_entities), not counted per read. It must match
// the entities there are after every kind of write (create, import, delete)
// and when writers race on one scope with names in common (on Postgres, where
// they run at once).
import { createSecretGuard } from "../../src/secrets/guard.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { ImportLine } from "../../src/import-file.js";
import { readGraph } from "../../src/graph/read.js";
import { createEntities, deleteEntities } from "../../src/graph/store.js";
import { importGraph } from "../../src/graph/transfer.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const ANSWER = 100_000;

describe.each(BACKENDS)("the kept entity count of a scope (%s)", (backend) => {
  let tdb: TestDatabase;
  let agentId: number;
  const writer = (scope: string) => ({ scope, agentId, maxChars: 4096 });

  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
    agentId = (await createAgent(tdb.db, { name: "writer", kind: "agent", writeScopes: ["*"] })).id;
  });

  /** read_graph's total and the entities there are, per scope. */
  async function totals(scope: string): Promise<{ read: number; stored: number }> {
    const read = (await readGraph(tdb.db, scope, { limit: 1 }, ANSWER)).totalEntities;
    const stored = (await tdb.db.query<{ n: number }>("select count(*)::int as n from graph_entities where scope = $1", [scope])).rows[0]!.n;
    return { read, stored };
  }

  it("follows creates, imports and deletes, scope by scope", async () => {
    expect(await totals("a")).toEqual({ read: 0, stored: 0 });
    await createEntities(tdb.db, writer("a"), ["x", "y", "z"].map((name) => ({ name, entityType: "t", observations: [] })));
    // An existing name is skipped, not counted again.
    await createEntities(tdb.db, writer("a"), ["z", "w"].map((name) => ({ name, entityType: "t", observations: [] })));
    await createEntities(tdb.db, writer("b"), [{ name: "x", entityType: "t", observations: [] }]);
    expect(await totals("a")).toEqual({ read: 4, stored: 4 });
    expect(await totals("b")).toEqual({ read: 1, stored: 1 });

    async function* lines(): AsyncGenerator<ImportLine> {
      const texts = ["v", "w", "u"].map((name) => JSON.stringify({ type: "entity", name, entityType: "t", observations: ["seen"] }));
      for (const [i, text] of texts.entries()) yield { number: i + 1, text };
    }
    await importGraph(tdb.db, writer("a"), lines(), { secrets: createSecretGuard("refuse") });
    expect(await totals("a")).toEqual({ read: 6, stored: 6 });

    await deleteEntities(tdb.db, writer("a"), ["x", "v", "missing"]);
    expect(await totals("a")).toEqual({ read: 4, stored: 4 });
    expect(await totals("b")).toEqual({ read: 1, stored: 1 });
  });

  it("stays exact when writers race on one scope with names in common", async () => {
    const names = (from: number) => Array.from({ length: 40 }, (_, i) => ({ name: `n-${from + i}`, entityType: "t", observations: ["o"] }));
    await Promise.all([
      ...Array.from({ length: 6 }, (_, k) => createEntities(tdb.db, writer("race"), names(k * 20))),
      ...Array.from({ length: 3 }, (_, k) => deleteEntities(tdb.db, writer("race"), names(k * 30).map((e) => e.name))),
    ]);
    const { read, stored } = await totals("race");
    expect(read).toBe(stored);
    expect(stored).toBeGreaterThan(0);
  });
});
