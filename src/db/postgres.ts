// The Postgres backend: a pg pool. Used whenever DATABASE_URL is set.
import pg from "pg";
import type { Database, DatabaseTimeouts, PoolStats, Queryable, QueryOptions, QueryResult, TransactionOptions } from "./database.js";
import { transactionPrelude } from "./database.js";
import { isConnectionError, pgCode, PgCode } from "./errors.js";
import { type ChosenHost, HostSelector } from "./host-selector.js";
import { parseHostList } from "./hosts.js";

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
  /** The variable that named the database, for messages (DATABASE_URL unless told). */
  setting?: string;
  /** Called when an idle pooled connection breaks (e.g. the server restarted). */
  onIdleError?: (error: Error) => void;
}

export function openPostgres(options: PostgresOptions): Database {
  const hostList = parseHostList(options.connectionString, options.setting ?? "DATABASE_URL");
  const selector = hostList && new HostSelector(hostList, options.connectTimeoutMs, options.setting ?? "DATABASE_URL");
  const pool = openPool(options, options.statementTimeoutMs, options.poolMax, selector);
  // queryBounded's connections: a quarter of the main pool's size (what they
  // run is advice; they must not double the connections the service holds).
  // Each starts with the configured timeout and takes the bound after its
  // first statement: a fresh backend's first statement (catalog caches, the
  // plan of a PL/pgSQL function) can take longer than the bound by itself, and
  // a warning missed on every new connection would be missed after every pause.
  const boundedPool = openPool(options, options.statementTimeoutMs, Math.max(2, Math.ceil(options.poolMax / 4)), selector);
  const boundOf = new WeakMap<pg.PoolClient, number>();

  const asResult = <R>(r: pg.QueryResult): QueryResult<R> => ({ rows: r.rows as R[], rowCount: r.rowCount ?? 0 });

  /**
   * A connection from `from`. With a host list, a connection opened before the
   * selector dropped its host is closed instead of used, and a failure that
   * says the host is gone or no longer the primary makes the selector look again.
   */
  const connect = async (from: pg.Pool): Promise<pg.PoolClient> => {
    if (!selector) return from.connect();
    for (;;) {
      const client = await from.connect();
      if ((client as unknown as SelectedHostClient).chosen.generation === selector.generation) return client;
      client.release(true);
    }
  };
  const noteFailure = (client: pg.PoolClient | undefined, error: unknown): void => {
    if (!selector || !client) return;
    if (isConnectionError(error) || pgCode(error) === PgCode.READ_ONLY_SQL_TRANSACTION) selector.forget((client as unknown as SelectedHostClient).chosen);
  };

  const query = async <R>(sql: string, params?: readonly unknown[], queryOptions?: QueryOptions): Promise<QueryResult<R>> => {
    if (!selector) return asResult<R>(await pool.query(queryConfig(sql, params, queryOptions)));
    const client = await connect(pool);
    let broken: Error | undefined;
    try {
      return asResult<R>(await client.query(queryConfig(sql, params, queryOptions)));
    } catch (error) {
      noteFailure(client, error);
      // A lost connection, or one to a host that is no longer the primary, is not reused.
      if (!pgCode(error) || pgCode(error) === PgCode.READ_ONLY_SQL_TRANSACTION) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  };

  return {
    kind: "postgres",
    query,
    async queryBounded<R>(timeoutMs: number, sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
      const bound = Math.trunc(timeoutMs);
      const client = await connect(boundedPool);
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
        noteFailure(client, error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async exec(sql: string) {
      await query(sql);
    },
    async transaction<T>(work: (tx: Queryable) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      const client = await connect(pool);
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
        noteFailure(client, error);
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
function openPool(options: PostgresOptions, statementTimeoutMs: number, max: number, selector: HostSelector | undefined): pg.Pool {
  const pool = new pg.Pool({
    // With a host list, every host shares the user, password, database and
    // parameters of the first one's URL; the client replaces the host and port.
    ...(selector ? { Client: selectedHostClient(selector), connectionString: selector.urlFor(selector.hosts[0]!) } : { connectionString: options.connectionString }),
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

/** A pg.Client that connects to the selector's current host. */
interface SelectedHostClient extends pg.Client {
  chosen: ChosenHost;
}

type ConnectCallback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

function selectedHostClient(selector: HostSelector): new () => pg.Client {
  return class extends pg.Client implements SelectedHostClient {
    chosen: ChosenHost = { host: "", port: 0, generation: -1 };

    // pg-pool calls connect(callback); the host is chosen first, asynchronously.
    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
      const connected = selector.pick().then(async (host) => {
        this.chosen = host;
        // The driver reads these two when it opens the socket (pg/lib/client.js, _connect).
        Object.assign(this, { host: host.host, port: host.port });
        try {
          return await super.connect();
        } catch (error) {
          if (isConnectionError(error)) selector.forget(host);
          throw error;
        }
      });
      if (!callback) return connected;
      connected.then(
        (client) => (callback as (err: null, c: pg.Client) => void)(null, client),
        (error: Error) => (callback as (err: Error) => void)(error),
      );
    }
  };
}
