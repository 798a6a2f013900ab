// PGlite's Postgres is a WebAssembly module the package ships (pglite.wasm). The
// service's thread compiles it once and hands it to each worker thread that opens
// a database; this module loads nothing of PGlite itself, so the service's thread
// does not either.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The folder of PGlite's package files (its entry point, pglite.wasm beside it). */
export function pgliteDist(): string {
  return dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
}

let compiledPostgres: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * PGlite's Postgres (pglite.wasm), compiled once per process for every worker that
 * opens a database (PGlite's `pgliteWasmModule`): a worker that compiles its own copy
 * spends ~0.4 s of CPU on it, again after each watchdog restart, and in the tests for
 * each of their databases. Undefined when the file is not where this PGlite version
 * keeps it: the worker then compiles as PGlite does by itself.
 */
export function compiledPglite(): Promise<WebAssembly.Module | undefined> {
  compiledPostgres ??= readFile(join(pgliteDist(), "pglite.wasm")).then(
    (bytes) => WebAssembly.compile(bytes),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    },
  );
  return compiledPostgres;
}
