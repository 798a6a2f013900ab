// Turns driver errors into DomainErrors an agent can act on. Everything not
// recognised stays as it is, to be logged and answered generically.
import { DomainError } from "../errors.js";
import { isConnectionError, pgCode, PgCode } from "./errors.js";

export function classifyDatabaseError(error: unknown): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (isConnectionError(error)) {
    return new DomainError("unavailable", "The memory database is unreachable right now. Nothing was written; retry in a few seconds.", undefined, true);
  }
  switch (pgCode(error)) {
    case PgCode.LOCK_NOT_AVAILABLE:
    case PgCode.DEADLOCK_DETECTED:
    case PgCode.SERIALIZATION_FAILURE:
      return new DomainError("conflict", "Another agent is changing the same record right now. Nothing was written; retry the call.", undefined, true);
    case PgCode.QUERY_CANCELED:
      return new DomainError("unavailable", "The database took too long to answer and the call was cancelled. Nothing was written; retry, or narrow the request.", undefined, true);
    default:
      return undefined;
  }
}
