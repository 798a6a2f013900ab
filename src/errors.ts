// The few errors a caller can act on. Their messages are written for the agent
// that made the call (what went wrong and what to do); anything else is logged
// and answered with a generic message, so internals never reach a client.

type ErrorCode = "invalid" | "not_found" | "conflict" | "forbidden" | "unavailable";

/**
 * A refusal's stable reason, for programs that act on it (the review app, the
 * console) instead of matching the message's words, which may change.
 * "changed_since_read": what the caller read was replaced or removed meanwhile.
 * "database_unavailable": the database could not be reached, or stopped
 * answering, during the call (an MCP request is then answered 503: docs/operations.md).
 */
type ErrorReason = "changed_since_read" | "database_unavailable";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra facts for structured answers (e.g. the current version). */
    readonly details?: Record<string, unknown>,
    /** True when the same call may succeed if simply retried later. */
    readonly retryable = false,
    /** The stable reason, where a program acts on it (ErrorReason). */
    readonly reason?: ErrorReason,
  ) {
    super(message);
  }
}

/** The same refusal, marked with its stable reason. */
export const because = (reason: ErrorReason, error: DomainError): DomainError => new DomainError(error.code, error.message, error.details, error.retryable, reason);

export const invalid = (message: string, details?: Record<string, unknown>) => new DomainError("invalid", message, details);
export const notFound = (message: string, details?: Record<string, unknown>) => new DomainError("not_found", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError("conflict", message, details);
export const forbidden = (message: string, details?: Record<string, unknown>) => new DomainError("forbidden", message, details);
