// Postgres SQLSTATE codes the service reacts to, by name.
export const PgCode = {
  UNIQUE_VIOLATION: "23505",
  FOREIGN_KEY_VIOLATION: "23503",
  CHECK_VIOLATION: "23514",
  CHARACTER_NOT_IN_REPERTOIRE: "22021",
  UNTRANSLATABLE_CHARACTER: "22P05",
  NUMERIC_VALUE_OUT_OF_RANGE: "22003",
  DATETIME_FIELD_OVERFLOW: "22008",
  INVALID_DATETIME_FORMAT: "22007",
  NOT_NULL_VIOLATION: "23502",
  SERIALIZATION_FAILURE: "40001",
  DEADLOCK_DETECTED: "40P01",
  LOCK_NOT_AVAILABLE: "55P03",
  READ_ONLY_SQL_TRANSACTION: "25006",
  QUERY_CANCELED: "57014",
  ADMIN_SHUTDOWN: "57P01",
  CRASH_SHUTDOWN: "57P02",
  CANNOT_CONNECT_NOW: "57P03",
  TOO_MANY_CONNECTIONS: "53300",
  OBJECT_NOT_IN_PREREQUISITE_STATE: "55000",
  RAISE_EXCEPTION: "P0001",
  INSUFFICIENT_PRIVILEGE: "42501",
} as const;

export function pgCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

const CONNECTION_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * True when the failure came before any statement could run: no host to
 * connect to, a refused or timed-out connection, a server that takes no
 * connection now. Nothing was written.
 */
export function isConnectFailure(error: unknown): boolean {
  const code = pgCode(error);
  if (code === "08001" || code === PgCode.CANNOT_CONNECT_NOW || code === PgCode.TOO_MANY_CONNECTIONS) return true;
  const sysCode = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
  if (sysCode === "ECONNREFUSED" || sysCode === "ENOTFOUND" || sysCode === "EAI_AGAIN") return true;
  return /timeout exceeded when trying to connect/i.test(error instanceof Error ? error.message : "");
}

/** True when the database could not be reached or dropped the connection: worth retrying later. */
export function isConnectionError(error: unknown): boolean {
  const code = pgCode(error);
  if (code && (code.startsWith("08") || code === PgCode.ADMIN_SHUTDOWN || code === PgCode.CRASH_SHUTDOWN || code === PgCode.CANNOT_CONNECT_NOW)) {
    return true;
  }
  // Also a database that cannot take a connection right now: all slots taken,
  // or connections switched off for maintenance (ALTER DATABASE … ALLOW_CONNECTIONS
  // false). Without these, a call whose token check still got a connection but
  // whose own query did not was answered "internal error" instead of "retry".
  if (code === PgCode.TOO_MANY_CONNECTIONS) return true;
  const message = error instanceof Error ? error.message : "";
  if (code === PgCode.OBJECT_NOT_IN_PREREQUISITE_STATE && /is not currently accepting connections/.test(message)) return true;
  if (typeof error === "object" && error !== null && "code" in error) {
    const sysCode = (error as { code: unknown }).code;
    if (typeof sysCode === "string" && CONNECTION_ERROR_CODES.has(sysCode)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i.test(message);
}
