// The few errors a caller can act on. Their messages are written for the agent
// that made the call (what went wrong and what to do); anything else is logged
// and answered with a generic message, so internals never reach a client.

export type ErrorCode = "invalid" | "not_found" | "conflict" | "forbidden" | "unavailable";

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra facts for structured answers (e.g. the current version). */
    readonly details?: Record<string, unknown>,
    /** True when the same call may succeed if simply retried later. */
    readonly retryable = false,
  ) {
    super(message);
  }
}

export const invalid = (message: string, details?: Record<string, unknown>) => new DomainError("invalid", message, details);
export const notFound = (message: string, details?: Record<string, unknown>) => new DomainError("not_found", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError("conflict", message, details);
export const forbidden = (message: string, details?: Record<string, unknown>) => new DomainError("forbidden", message, details);
export const unavailable = (message: string) => new DomainError("unavailable", message, undefined, true);
