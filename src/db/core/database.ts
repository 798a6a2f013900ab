// One small interface over both backends (a pg pool or the embedded PGlite), so
// capability stores never know which one runs underneath.

export interface QueryResult<R> {
  rows: R[];
  /** Rows inserted, updated or deleted (0 for plain selects on some backends). */
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Runs the statement as a named prepared statement on Postgres: parsed and
   * parsed once per connection, not on every call, and planned once when its
   * generic plan is not dearer than a custom one (Postgres's plan cache
   * decides; statistics changed by ANALYZE make it plan again). For statements
   * on the request path: the token check, the graph reads, the facts tools. One name, one text.
   * PGlite ignores it. A transaction-mode PgBouncer older
   * than 1.21 does not carry named statements (docs/operations.md).
   */
  prepareAs?: string;
  /**
   * On the embedded database (one connection, one statement at a time), runs
   * the statement ahead of those waiting for their turn: for the token check,
   * which every call waits on before its own queue. Postgres ignores it.
   */
  urgent?: boolean;
}

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface TransactionOptions {
  /** Overrides the configured lock_timeout for this transaction. */
  lockTimeoutMs?: number;
  /** Overrides the configured statement_timeout for this transaction. */
  statementTimeoutMs?: number;
  /**
   * Plans this transaction's statements without sequential scans, as
   * am_graph_search and am_recall run theirs: for tests that look at the plans
   * those functions' statements get.
   */
  withoutSeqScans?: boolean;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /**
   * Runs `work` inside BEGIN … COMMIT with lock_timeout and statement_timeout set
   * locally, so a stuck lock or a slow statement fails the transaction instead of
   * hanging the caller. Any throw rolls everything back.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * One statement under its own statement timeout, in one round trip: on
   * Postgres it runs on a small pool of connections whose session timeout is
   * `timeoutMs` (a transaction with SET LOCAL would cost two more round trips),
   * except a new connection's first statement, which runs under the configured
   * timeout (a fresh backend is slow once).
   * For advice that must not slow a call down, such as the duplicate warning.
   * The embedded database runs it without the bound: a statement past its
   * timeout there restarts the database's worker (src/db/embedded/pglite.ts).
   */
  queryBounded<R = Record<string, unknown>>(timeoutMs: number, sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
  poolStats(): PoolStats;
  /** Postgres only: what /readyz and /metrics say of the database beyond "it answers" (DatabaseHealth). */
  health?(): Promise<DatabaseHealth>;
  close(): Promise<void>;
}

/** The faults a database that answers can still have. */
export interface DatabaseHealth {
  /**
   * Commits of this service waiting for a synchronous standby past the deadline
   * margin: the standby is gone, and writes answer "may have committed" at their
   * deadline until it is back (docs/replicas.md).
   */
  writesWaitingForStandby: number;
  /** Writable hosts of DATABASE_URL's list on an older timeline than the primary: old primaries back after a failover, never used. */
  stalePrimaries: string[];
}

export interface DatabaseTimeouts {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
}

/** The SET LOCAL prelude of every transaction. Only integers from validated config reach it. */
export function transactionPrelude(defaults: DatabaseTimeouts, options: TransactionOptions = {}): string {
  const lock = Math.trunc(options.lockTimeoutMs ?? defaults.lockTimeoutMs);
  const statement = Math.trunc(options.statementTimeoutMs ?? defaults.statementTimeoutMs);
  const planner = options.withoutSeqScans ? "; set local enable_seqscan = off" : "";
  return `set local lock_timeout = ${lock}; set local statement_timeout = ${statement}${planner}`;
}
