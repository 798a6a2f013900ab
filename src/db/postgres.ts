// The Postgres backend: a pg pool. Used whenever DATABASE_URL is set.
import pg from "pg";
import type { Database, DatabaseTimeouts, PoolStats, Queryable, QueryOptions, QueryResult, TransactionOptions } from "./database.js";
import { transactionPrelude } from "./database.js";

const INT8_OID = 20;

// Row ids and counts are int8; at the sizes this service handles they fit a JS
// number, and PGlite returns them as numbers too, so both backends agree.
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID && format !== "binary") return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
};

interface PostgresOptions extends DatabaseTimeouts {
  connectionString: string;
  poolMax: number;
  connectTimeoutMs: number;
  applicationName?: string;
  /** Called when an idle pooled connection breaks (e.g. the server restarted). */
  onIdleError?: (error: Error) => void;
}

export function openPostgres(options: PostgresOptions): Database {
  const pool = openPool(options, options.statementTimeoutMs, options.poolMax);
  // queryBounded's connections: a quarter of the main pool's size (what they
  // run is advice; they must not double the connections the service holds).
  // Each starts with the configured timeout and takes the bound after its
  // first statement: a fresh backend's first statement (catalog caches, the
  // plan of a PL/pgSQL function) can take longer than the bound by itself, and
  // a warning missed on every new connection would be missed after every pause.
  const boundedPool = openPool(options, options.statementTimeoutMs, Math.max(2, Math.ceil(options.poolMax / 4)));
  const boundOf = new WeakMap<pg.PoolClient, number>();

  const asResult = <R>(r: pg.QueryResult): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 });

  return {
    kind: "postgres",
    async query<R>(sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
      return asResult<R>(await pool.query(queryConfig(sql, params, queryOptions)));
    },
    async queryBounded<R>(timeoutMs: number, sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
      const bound = Math.trunc(timeoutMs);
      const client = await boundedPool.connect();
      let broken: Error | undefined;
      try {
        const current = boundOf.get(client);
        // A warm connection under another bound (in practice only in tests) takes this one first.
        if (current !== undefined && current !== bound) {
          await client.query(`set statement_timeout = ${bound}`);
          boundOf.set(client, bound);
        }
        const result = asResult<R>(await client.query(queryConfig(sql, params, queryOptions)));
        if (current === undefined) {
          await client.query(`set statement_timeout = ${bound}`);
          boundOf.set(client, bound);
        }
        return result;
      } catch (error) {
        // A statement cancelled by its timeout (or refused for any reason the
        // server gives) leaves the connection usable; only a lost connection,
        // which carries no SQLSTATE, is dropped.
        if (!(error as { code?: unknown }).code) broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query(`begin; ${transactionPrelude(options, txOptions)}`);
        const tx: Queryable = {
          async query<R>(sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
            return asResult<R>(await client.query(queryConfig(sql, params, queryOptions)));
          },
          async exec(sql: string) {
            await client.query(sql);
          },
        };
        const result = await work(tx);
        await client.query("commit");
        return result;
      } catch (error) {
        try {
          await client.query("rollback");
        } catch (rollbackError) {
          // The connection itself is gone: make the pool drop it.
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    poolStats(): PoolStats {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: options.poolMax };
    },
    async close() {
      await Promise.all([pool.end(), boundedPool.end()]);
    },
  };
}

/** A pool whose sessions run statements outside explicit transactions under `statementTimeoutMs`. */
function openPool(options: PostgresOptions, statementTimeoutMs: number, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    // Session defaults for statements outside explicit transactions.
    statement_timeout: statementTimeoutMs,
    lock_timeout: options.lockTimeoutMs,
    // A transaction left open by a crashed request must not hold locks forever.
    idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs * 2, 10_000),
    application_name: options.applicationName ?? "agent-memory",
    types,
  });
  // Without a listener, an idle client losing its connection (database restart)
  // would crash the process. The pool discards that client by itself. It also
  // hangs the whole client on the error; logging that would dump its state.
  pool.on("error", (error) => {
    delete (error as Error & { client?: unknown }).client;
    options.onIdleError?.(error);
  });
  // The pool listens for errors only while a client is idle. A client that is
  // handed out (to a transaction, or to the next waiter in the instant between
  // two users, while one socket read still holds the backend's FATAL message)
  // emitted 'error' with nobody listening when Postgres terminated its
  // connection: an uncaught exception that crashed the process. Found by the
  // reliability tests terminating backends under load. Listening for the client's
  // whole life is enough: a dead client is no longer queryable, so its next query
  // fails (and is answered "retry") and the pool discards it on release.
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** The driver's query config: a named prepared statement when asked for (QueryOptions.prepareAs). */
function queryConfig(text: string, params: readonly unknown[] | undefined, options: QueryOptions | undefined): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  return options?.prepareAs ? { name: options.prepareAs, text, values } : { text, values };
}
