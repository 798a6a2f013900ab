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
// The planner's statistics are part of the shape: first as they are right
// after loading (gathered before the large scope existed, where read_graph's
// relations took the whole scope through one index), then of every scope in a
// table not vacuumed since (where read_graph's page walked the primary key
// past every other scope's entities: a small scope stored after a large one
// must read as many blocks of the entities' table as one stored before).
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import type { Database, Queryable } from "../../src/db/core/database.js";
import { openNodes } from "../../src/graph/read.js";
import { GRAPH_PAGE } from "../../src/graph/read-sql.js";
import { readRelations } from "../../src/graph/relations.js";
import { searchNodes } from "../../src/graph/search.js";
import { createEntities, createRelations } from "../../src/graph/store.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

const SMALL = 200;
const LARGE = 5_000;
const ANSWER = 100_000;

/** Blocks of graph_relations' indexes fetched so far in this transaction. */
async function relationIndexBlocks(tx: Queryable): Promise<number> {
  const r = await tx.query<{ n: string }>(
    `select coalesce(sum(pg_stat_get_xact_blocks_fetched(i.indexrelid)), 0) as n from pg_index i where i.indrelid = 'graph_relations'::regclass`,
  );
  return Number(r.rows[0]!.n);
}

/** Blocks of the graph_entities table fetched so far in this transaction. */
async function entityTableBlocks(tx: Queryable): Promise<number> {
  const r = await tx.query<{ n: string }>(`select pg_stat_get_xact_blocks_fetched('graph_entities'::regclass) as n`);
  return Number(r.rows[0]!.n);
}

describe.each(BACKENDS)("selective graph reads on %s", (backend) => {
  let tdb: TestDatabase;

  beforeAll(async () => {
    tdb = await createTestDatabase(backend, { statementTimeoutMs: 120_000 });
    // The statistics below are the test's premise: autovacuum's own analyze
    // (which a busy machine runs at any moment) must not replace them.
    for (const table of ["graph_entities", "graph_observations", "graph_relations"]) await tdb.db.exec(`alter table ${table} set (autovacuum_enabled = off)`);
    const agent = await createAgent(tdb.db, { name: "loader", kind: "agent", writeScopes: ["small", "large", "late"] });
    // Statistics as a new team's agents read with: gathered when the graph
    // held only the first scope, so the planner has never seen the others
    // (estimated at a row or two).
    for (const [scope, n] of [["small", SMALL], ["large", LARGE], ["late", SMALL]] as const) {
      const w = { scope, agentId: agent.id, maxChars: 4096 };
      const name = (i: number) => `entity-${i}`;
      for (let i = 0; i < n; i += 1000) {
        const count = Math.min(1000, n - i);
        await createEntities(tdb.db, w, Array.from({ length: count }, (_, k) => ({ name: name(i + k), entityType: "thing", observations: [`note of ${name(i + k)}`, i + k === 7 ? "a rare needle" : "plain"] })));
        await createRelations(tdb.db, w, Array.from({ length: count }, (_, k) => ({ from: name(i + k), to: name((i + k + 1) % n), relationType: "next" })));
      }
      if (scope === "small") for (const table of ["graph_entities", "graph_observations", "graph_relations"]) await tdb.db.exec(`analyze ${table}`);
    }
  }, 300_000);

  /**
   * Index blocks one read fetches, in a transaction of its own (with the
   * settings search_nodes runs under): the read gets a database whose
   * transaction is this one.
   */
  async function blocksOf(read: (db: Database) => Promise<unknown>, counted = relationIndexBlocks): Promise<number> {
    return tdb.db.transaction(
      async (tx) => {
        const inside: Database = { ...tdb.db, query: tx.query, exec: tx.exec, transaction: (work) => work(tx) };
        const before = await counted(tx);
        await read(inside);
        return (await counted(tx)) - before;
      },
      { withoutSeqScans: true },
    );
  }

  /**
   * What a read fetches once its count stops falling: a page's reads prune the
   * row versions its scope's writes left and mark their index entries dead
   * (fetching each on the way), as far as other transactions on the server
   * allow at that moment, so the first read of a scope fetches more, and on a
   * busy server the next one may too. A read that walks what it should not
   * fetches as much every time, and stays over the bound.
   */
  async function settledBlocksOf(read: (db: Database) => Promise<unknown>, counted = relationIndexBlocks): Promise<number> {
    const deadline = Date.now() + 10_000;
    let last = await blocksOf(read, counted);
    for (;;) {
      const now = await blocksOf(read, counted);
      if (now >= last || Date.now() > deadline) return now;
      last = now;
    }
  }

  const names = [3, 11, 57, 123, 190].map((i) => `entity-${i}`);
  const reads: Array<[string, (scope: string) => (db: Database) => Promise<unknown>]> = [
    ["open_nodes of five names", (scope) => (db) => openNodes(db, scope, names, ANSWER)],
    ["search_nodes with one hit", (scope) => (db) => searchNodes(db, scope, "rare needle", {}, ANSWER, 10_000)],
    // As read_graph reads the relations of a page of entities.
    ["read_relations of five names", (scope) => (db) => readRelations(db, scope, { names }, ANSWER)],
  ];

  it.each(reads)("%s fetches as many blocks of the relations' indexes in a scope of 5,000 entities as in one of 200", async (_label, read) => {
    // Measured with the same prepared statements, once each read has pruned what its writes left.
    const small = await settledBlocksOf(read("small"));
    const large = await settledBlocksOf(read("large"));
    expect(small).toBeGreaterThan(0);
    // A deeper index costs a block more per lookup, nothing that grows with the scope.
    expect(large, `small ${small}, large ${large}`).toBeLessThanOrEqual(small * 1.5 + 10);
  });

  // Statistics of every scope, in a table not vacuumed since its last rows:
  // where reading the primary key in id order looked cheaper than the scope's
  // own index.
  describe("once the statistics know every scope", () => {
    beforeAll(async () => {
      for (const table of ["graph_entities", "graph_observations", "graph_relations"]) await tdb.db.exec(`analyze ${table}`);
    });

    const pages: Array<[string, (scope: string) => (db: Database) => Promise<unknown>]> = [
      ["open_nodes of five names", (scope) => (db) => openNodes(db, scope, names, ANSWER)],
      ["search_nodes with one hit", (scope) => (db) => searchNodes(db, scope, "rare needle", {}, ANSWER, 10_000)],
      // Its page alone (readGraph opens a snapshot of its own, which the measuring transaction cannot).
      ["read_graph's first page", (scope) => (db) => db.query(GRAPH_PAGE, [scope, 100, 0, ANSWER])],
    ];

    it.each(pages)("%s fetches as many blocks of the entities' table in a small scope stored after 5,000 entities as in one stored before", async (_label, read) => {
      // Counted once each read has pruned what its scope's writes left (the late
      // scope read once first still came to 1.57× the small one's count on two
      // busy runs, over the bound by a few blocks).
      const before = await settledBlocksOf(read("small"), entityTableBlocks);
      const after = await settledBlocksOf(read("late"), entityTableBlocks);
      expect(before).toBeGreaterThan(0);
      expect(after, `stored before ${before}, after ${after}`).toBeLessThanOrEqual(before * 1.5 + 10);
    });
  });
});
