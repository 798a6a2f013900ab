// The Postgres backend: a pg pool. Used whenever DATABASE_URL is set. Every
// wait on a socket is bounded here (cluster/deadline.ts): connecting by
// DB_CONNECT_TIMEOUT_MS, each statement and commit by its statement timeout and
// a margin; connections carry TCP keepalive so that a peer gone without a word
// is found out on an idle connection too.
import pg from "pg";
import type { Database, DatabaseHealth, DatabaseTimeouts, PoolStats, Queryable, QueryOptions, QueryResult, TransactionOptions } from "../core/database.js";
import { transactionPrelude } from "../core/database.js";
import { isConnectionError, pgCode, PgCode } from "../core/errors.js";
import { DatabaseDeadlineError, DEADLINE_MARGIN_MS, deadlineFor, isReadTimeout } from "./deadline.js";
import { type ChosenHost, HostSelector, type HostSurvey } from "./host-selector.js";
import { parseHostList } from "../../config/host-list.js";

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
  /** Called when a search of the host list finds an old primary writable beside the current one (it is never used). */
  onStalePrimary?: (survey: HostSurvey) => void;
}

export function openPostgres(options: PostgresOptions): Database {
  const hostList = parseHostList(options.connectionString, options.setting ?? "DATABASE_URL");
  const selector = hostList && new HostSelector(hostList, options.connectTimeoutMs, options.setting ?? "DATABASE_URL", options.onStalePrimary);
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
  const sessionDeadline = deadlineFor(options.statementTimeoutMs);
  /** Runs one statement on `client` within `deadlineMs`; a missed deadline is a DatabaseDeadlineError. */
  const run = async (client: pg.ClientBase | pg.Pool, sql: string, params: readonly unknown[] | undefined, queryOptions: QueryOptions | undefined, deadlineMs: number) => {
    try {
      return await client.query(queryConfig(sql, params, queryOptions, deadlineMs));
    } catch (error) {
      throw isReadTimeout(error) ? new DatabaseDeadlineError(deadlineMs) : error;
    }
  };

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
    // pg-pool drops a client whose query failed, so a connection past its deadline is not reused.
    if (!selector) return asResult<R>(await run(pool, sql, params, queryOptions, sessionDeadline));
    const client = await connect(pool);
    let broken: Error | undefined;
    try {
      return asResult<R>(await run(client, sql, params, queryOptions, sessionDeadline));
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
          await run(client, `set statement_timeout = ${bound}`, undefined, undefined, sessionDeadline);
          boundOf.set(client, bound);
        }
        // The first statement of a connection runs under the configured timeout: so does its deadline.
        const result = asResult<R>(await run(client, sql, params, queryOptions, deadlineFor(current === undefined ? options.statementTimeoutMs : bound)));
        if (current === undefined) {
          await run(client, `set statement_timeout = ${bound}`, undefined, undefined, sessionDeadline);
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
      // The transaction's own statement timeout bounds its statements, and its commit.
      const deadline = deadlineFor(txOptions?.statementTimeoutMs ?? options.statementTimeoutMs);
      let broken: Error | undefined;
      try {
        await run(client, `begin; ${transactionPrelude(options, txOptions)}`, undefined, undefined, deadline);
        const tx: Queryable = {
          async query<R>(sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
            return asResult<R>(await run(client, sql, params, queryOptions, deadline));
          },
          async exec(sql: string) {
            await run(client, sql, undefined, undefined, deadline);
          },
        };
        const result = await work(tx);
        await run(client, "commit", undefined, undefined, deadline);
        return result;
      } catch (error) {
        noteFailure(client, error);
        if (error instanceof DatabaseDeadlineError) {
          // The connection still waits for the missed answer: a rollback would queue behind it.
          broken = error;
          throw error;
        }
        try {
          await run(client, "rollback", undefined, undefined, sessionDeadline);
        } catch (rollbackError) {
          // The connection itself is gone: make the pool drop it.
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async health(): Promise<DatabaseHealth> {
      const [waiting, survey] = await Promise.all([
        query<{ n: number }>(WRITES_WAITING_FOR_STANDBY, [DEADLINE_MARGIN_MS / 1000], { prepareAs: "am_writes_waiting_for_standby" }),
        selector?.survey(),
      ]);
      return { writesWaitingForStandby: waiting.rows[0]?.n ?? 0, stalePrimaries: survey?.stale ?? [] };
    },
    poolStats(): PoolStats {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: options.poolMax };
    },
    async close() {
      await Promise.all([pool.end(), boundedPool.end(), selector?.close()]);
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
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
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

/**
 * This service's own sessions (the only ones a role without pg_monitor sees
 * whole) whose statement or commit has waited for a synchronous standby longer
 * than $1 seconds.
 */
const WRITES_WAITING_FOR_STANDBY = `
  select count(*)::int as n from pg_stat_activity
   where wait_event = 'SyncRep' and now() - query_start > make_interval(secs => $1::float8)`;

/** Idle seconds before TCP keepalive probes a connection (the probes' interval and count are the system's). */
const KEEPALIVE_IDLE_MS = 10_000;

/** The driver's query config: a named prepared statement when asked for (QueryOptions.prepareAs), and the client's deadline. */
function queryConfig(text: string, params: readonly unknown[] | undefined, options: QueryOptions | undefined, deadlineMs: number): pg.QueryConfig {
  const values = params as unknown[] | undefined;
  // query_timeout is read by pg's client (not in its QueryConfig type).
  return { ...(options?.prepareAs ? { name: options.prepareAs } : {}), text, values, query_timeout: deadlineMs } as pg.QueryConfig;
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
