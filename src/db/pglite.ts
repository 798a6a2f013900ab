// The embedded backend: PGlite (Postgres compiled to WebAssembly) in a local data
// folder, so the service starts on a machine with no database installed. It is a
// single connection: PGlite queues queries, and a transaction holds the queue.
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Database, DatabaseTimeouts, PoolStats, Queryable, TransactionOptions } from "./database.js";
import { transactionPrelude } from "./database.js";

export interface PgliteOptions extends DatabaseTimeouts {
  /** A folder path, or undefined for a throwaway in-memory database (tests). */
  dataDir: string | undefined;
}

export async function openPglite(options: PgliteOptions): Promise<Database> {
  const db = await PGlite.create(options.dataDir, { extensions: { pg_trgm } });
  await db.exec(`set statement_timeout = ${Math.trunc(options.statementTimeoutMs)}`);
  let closed = false;

  const wrap = (q: Pick<PGlite, "query" | "exec">): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[]) {
      const r = await q.query<R>(sql, params as unknown[] | undefined);
      return { rows: r.rows, rowCount: r.affectedRows ?? 0 };
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const direct = wrap(db);

  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    async transaction<T>(work: (tx: Queryable) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      return db.transaction(async (tx) => {
        await tx.exec(transactionPrelude(options, txOptions));
        return work(wrap(tx));
      });
    },
    poolStats(): PoolStats {
      return { total: closed ? 0 : 1, idle: 0, waiting: 0, max: 1 };
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}
