// Messages between the service and the worker thread that owns the embedded
// database (pglite-worker.ts). Values travel by structured clone (rows with
// Dates, byte arrays and nested JSON values arrive as they left), never as JSON.

export interface WorkerInit {
  /** A folder path, or undefined for an in-memory database. */
  dataDir: string | undefined;
  /** In memory: start from this tarball of a data folder (PGlite's dumpDataDir) instead of an empty database. */
  template?: string | undefined;
  /** PGlite's Postgres compiled by the process (compiledPglite), or undefined for the worker to compile it. */
  postgres: WebAssembly.Module | undefined;
  statementTimeoutMs: number;
}

export type WorkerRequest =
  | { id: number; op: "query"; sql: string; params: readonly unknown[] | undefined; inTx: boolean }
  | { id: number; op: "exec"; sql: string; inTx: boolean }
  /** Opens the one transaction (BEGIN + prelude); its statements follow with inTx. */
  | { id: number; op: "begin"; prelude: string }
  | { id: number; op: "commit" }
  | { id: number; op: "rollback" }
  | { id: number; op: "close" };

/** The parts of a Postgres error the service looks at (code first: see db/core/errors.ts). */
export interface WorkerError {
  message: string;
  fields: Record<string, string | number>;
}

export type WorkerResponse =
  | { id: number; ok: true; rows?: unknown[]; rowCount?: number }
  | { id: number; ok: false; error: WorkerError }
  /** Sent once, when the database is open (id 0). */
  | { id: 0; ok: true; ready: true };

// Fields of pg-protocol's DatabaseError worth keeping; the failed query and its
// parameters stay in the worker (they may be large, or hold an agent's text).
const ERROR_FIELDS = ["code", "severity", "detail", "hint", "position", "where", "schema", "table", "column", "dataType", "constraint", "routine"];

export function toWorkerError(error: unknown): WorkerError {
  const fields: Record<string, string | number> = {};
  if (typeof error === "object" && error !== null) {
    for (const key of ERROR_FIELDS) {
      const value = (error as Record<string, unknown>)[key];
      if (typeof value === "string" || typeof value === "number") fields[key] = value;
    }
  }
  return { message: errorMessage(error), fields };
}

/** What went wrong, in words: PGlite's initialisation may throw plain objects (an Emscripten status), which String() would print as "[object Object]". */
function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null) {
    const { message, status } = error as { message?: unknown; status?: unknown };
    if (typeof message === "string") return message;
    const text = JSON.stringify(error);
    return `the embedded database failed${status !== undefined ? ` (status ${String(status)})` : ""}: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
  }
  return String(error);
}

/** An Error carrying the same fields as the driver's, so classify.ts reads it unchanged. */
export function fromWorkerError(error: WorkerError): Error {
  return Object.assign(new Error(error.message), error.fields);
}
