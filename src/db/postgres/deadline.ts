// The client's own deadline on every wait for Postgres. The server's
// statement_timeout cancels a statement the server is running; it cannot fire
// when the server does not answer at all (a frozen host, a partition) or when
// the wait is not a statement's (a commit waiting for its synchronous standby).
// So every statement, commit included, is also bounded on this side: past its
// statement timeout and a margin for the cancel to come back, the connection is
// given up as broken (a host list then looks for the primary again, a replica
// is marked down) and the call answers at once.

/** What the deadline adds to the statement timeout: the server's own cancel comes back well within it. */
export const DEADLINE_MARGIN_MS = 2_000;

/** The longest a statement (or a commit) under `statementTimeoutMs` is waited for. */
export function deadlineFor(statementTimeoutMs: number): number {
  return statementTimeoutMs + DEADLINE_MARGIN_MS;
}

/**
 * A statement, or a commit, that got no answer within its deadline. Its SQLSTATE
 * is connection_failure (class 08): the connection is dropped and the host
 * treated as gone. Whether a write in it committed is unknown: a commit waiting
 * for a synchronous standby that is gone commits when the standby comes back.
 */
export class DatabaseDeadlineError extends Error {
  readonly code = "08006";
  override name = "DatabaseDeadlineError";
  constructor(readonly deadlineMs: number) {
    super(`The database did not answer within ${deadlineMs} ms; the connection was given up`);
  }
}

/** pg's own words when a query's read timeout (query_timeout) fires. */
export function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === "Query read timeout";
}
