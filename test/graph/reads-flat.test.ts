// Selective graph reads cost what their page costs, not what the scope holds.
// A bound written as a row comparison over (scope, key, id) made every read
// that shows an entity scan the rest of its scope's relations index for it:
// open_nodes of five names went from 9 to 89 ms at 5,000 entities of one
// relation each, 1.2 s at 50,000. Counted, not timed: the blocks of the
// relations' indexes each read fetches in its own transaction (the statistics
// Postgres keeps per transaction), in a small and a large scope of the same
// shape, must be the same give or take a page per lookup. (The trigram
// indexes' scope entry is a compressed list of the scope's rows, read whole by
// each search; its cost is the benchmark's to watch: npm run bench, scaling.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { Database, Queryable } from "../../src/db/database.js";
import { openNodes } from "../../src/graph/read.js";
import { searchNodes } from "../../src/graph/search.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const SMALL = 200;
const LARGE = 5_000;
const ANSWER = 100_000;

/** Blocks of graph_relations' indexes fetched so far in this transaction. */
async function indexBlocks(tx: Queryable): Promise<number> {
  const r = await tx.query<{ n: string }>(
    `select coalesce(sum(pg_stat_get_xact_blocks_fetched(i.indexrelid)), 0) as n from pg_index i where i.indrelid = 'graph_relations'::regclass`,
  );
  return Number(r.rows[0]!.n);
}

describe.each(BACKENDS)("selective graph reads on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["small", "large"] });
    for (const [scope, n] of [["small", SMALL], ["large", LARGE]] as const) {
      const w = { scope, agentId: agent.id, maxChars: 4096 };
      const name = (i: number) => `entity-${i}`;
      for (let i = 0; i < n; i += 1000) {
        const count = Math.min(1000, n - i);
        await createEntities(tdb.db, w, Array.from({ length: count }, (_, k) => ({ name: name(i + k), entityType: "thing", observations: [`note of ${name(i + k)}`, i + k === 7 ? "a rare needle" : "plain"] })));
        await createRelations(tdb.db, w, Array.from({ length: count }, (_, k) => ({ from: name(i + k), to: name((i + k + 1) % n), relationType: "next" })));
      }
    }
    for (const table of ["graph_entities", "graph_observations", "graph_relations"]) await tdb.db.exec(`vacuum analyze ${table}`);
  }, 300_000);
  afterAll(async () => {
    await tdb?.drop();
  });

  /**
   * Index blocks one read fetches, in a transaction of its own (with the
   * settings search_nodes runs under): the read gets a database whose
   * transaction is this one.
   */
  async function blocksOf(read: (db: Database) => Promise<unknown>): Promise<number> {
    return tdb.db.transaction(
      async (tx) => {
        const inside: Database = { ...tdb.db, query: tx.query, exec: tx.exec, transaction: (work) => work(tx) };
        const before = await indexBlocks(tx);
        await read(inside);
        return (await indexBlocks(tx)) - before;
      },
      { withoutSeqScans: true },
    );
  }

  const names = [3, 11, 57, 123, 190].map((i) => `entity-${i}`);
  const reads: Array<[string, (scope: string) => (db: Database) => Promise<unknown>]> = [
    ["open_nodes of five names", (scope) => (db) => openNodes(db, scope, names, ANSWER)],
    ["search_nodes with one hit", (scope) => (db) => searchNodes(db, scope, "rare needle", {}, ANSWER, 10_000)],
  ];

  it.each(reads)("%s fetches as many blocks of the relations' indexes in a scope of 5,000 entities as in one of 200", async (_label, read) => {
    // Once first, so that both are measured with the same prepared statements.
    await blocksOf(read("small"));
    const small = await blocksOf(read("small"));
    const large = await blocksOf(read("large"));
    expect(small).toBeGreaterThan(0);
    // A deeper index costs a block more per lookup, nothing that grows with the scope.
    expect(large, `small ${small}, large ${large}`).toBeLessThanOrEqual(small * 1.5 + 10);
  });
});
