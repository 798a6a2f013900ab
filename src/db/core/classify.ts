// Turns driver errors into DomainErrors an agent can act on. Everything not
// recognised stays as it is, to be logged and answered generically.
import { DomainError } from "../../errors.js";
import { isConnectionError, isConnectFailure, pgCode, PgCode } from "./errors.js";

const unavailable = (message: string) => new DomainError("unavailable", message, undefined, true, "database_unavailable");

/** What a call that could not reach the database at all is told (nothing of it ran). */
export const DATABASE_UNREACHABLE_MESSAGE = "The memory database is unreachable right now. Nothing was written; retry in a few seconds.";

/**
 * `mayHaveWritten`: the failed call was one that writes. A connection lost, or
 * a deadline missed, after its statements were sent leaves it unknown whether
 * they committed (a commit waiting for a synchronous standby that is gone
 * commits when the standby returns): the answer says how to find out.
 */
export function classifyDatabaseError(error: unknown, options: { mayHaveWritten?: boolean } = {}): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (isConnectionError(error)) {
    if (!options.mayHaveWritten || isConnectFailure(error)) return unavailable(DATABASE_UNREACHABLE_MESSAGE);
    return unavailable(
      "The memory database stopped answering during this call (a failover, or a synchronous standby that is gone), so it may or may not have been written. " +
        "Check before you retry: memory_get shows a fact's current version, ledger_check whether an action was recorded. Then retry in a few seconds if it is not there.",
    );
  }
  switch (pgCode(error)) {
    case PgCode.LOCK_NOT_AVAILABLE:
    case PgCode.DEADLOCK_DETECTED:
    case PgCode.SERIALIZATION_FAILURE:
      return new DomainError("conflict", "Another agent is changing the same record right now. Nothing was written; retry the call.", undefined, true);
    // Values the database cannot store or refuses by a constraint: the service's
    // own checks should catch these first; this is the backstop.
    case PgCode.CHARACTER_NOT_IN_REPERTOIRE:
    case PgCode.UNTRANSLATABLE_CHARACTER:
    case PgCode.NUMERIC_VALUE_OUT_OF_RANGE:
    case PgCode.DATETIME_FIELD_OVERFLOW:
    case PgCode.INVALID_DATETIME_FORMAT:
    case PgCode.CHECK_VIOLATION:
      return new DomainError("invalid", "The database refused a value of this call: check text for unusual characters and numbers or dates for their range. Nothing was written.");
    // The host this connection reached is a standby now (a switchover or a
    // failover under way): the next connection looks for the new primary.
    case PgCode.READ_ONLY_SQL_TRANSACTION:
      return unavailable("The memory database is changing its primary server right now. Nothing was written; retry in a few seconds.");
    case PgCode.QUERY_CANCELED:
      return new DomainError("unavailable", "The database took too long to answer and the call was cancelled. Nothing was written; retry, or narrow the request.", undefined, true);
    default:
      return undefined;
  }
}
