// The embedded backend: PGlite (Postgres compiled to WebAssembly) in a local data
// folder, so the service starts on a machine with no database installed. PGlite
// runs in a worker thread of its own (pglite-worker.ts): a statement that takes
// seconds then blocks that thread, not the service's HTTP handling. It is a
// single connection: statements go to the worker one at a time, and a
// transaction holds that queue until it ends, as PGlite's own queue did.
//
// The watchdog: PGlite cannot cancel a running statement, so when one runs past
// its statement timeout the caller gets Postgres' own "canceling statement due
// to statement timeout" (57014), the worker is terminated, and a new one opens
// the same data folder (Postgres recovers from its WAL as after a crash; work
// of the interrupted transaction is rolled back). The data-folder lock is the
// caller's (open.ts) and stays held throughout. An in-memory database (tests)
// cannot survive its worker: after a timeout it is gone, and every later call
// fails as a lost connection (57P01) until it is closed.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Database, DatabaseTimeouts, PoolStats, Queryable, QueryOptions, QueryResult, TransactionOptions } from "../core/database.js";
import { transactionPrelude } from "../core/database.js";
import { PgCode } from "../core/errors.js";
import { compiledPglite } from "./pglite-wasm.js";
import { fromWorkerError, type WorkerInit, type WorkerRequest, type WorkerResponse } from "./pglite-protocol.js";

interface PgliteOptions extends DatabaseTimeouts {
  /** A folder path, or undefined for a throwaway in-memory database (tests). */
  dataDir: string | undefined;
  /**
   * In memory: a tarball of a data folder (PGlite's dumpDataDir) to start from,
   * e.g. a migrated schema: loading it skips initdb, most of an open's time.
   */
  template?: string;
  /** Told each time the watchdog ends a worker (for the log). */
  onWorkerRestart?: (reason: string) => void;
}

type Request = WorkerRequest extends infer M ? (M extends unknown ? Omit<M, "id"> : never) : never;

interface InFlight {
  resolve(response: WorkerResponse & { ok: true }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Starts the worker's code: compiled JavaScript, or, when this module runs as
 * TypeScript source (tests, bench under tsx), the source through tsx, which a
 * worker does not inherit from its parent.
 */
function startWorker(init: WorkerInit): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./pglite-worker.js", import.meta.url), { workerData: init });
  const source = new URL("./pglite-worker.ts", import.meta.url).href;
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api")).href.replace(/\.cjs$/, ".mjs");
  const boot = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(source)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(boot, { eval: true, workerData: init });
}

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One worker thread and the single statement in flight on it. */
class WorkerLink {
  readonly ready: Promise<void>;
  private worker!: Worker;
  private inFlight: InFlight | undefined;
  private nextId = 1;
  private opened = false;
  dead = false;
  /** Settles once the thread is gone (its files closed), for the next one to wait on. */
  exited: Promise<unknown> = Promise.resolve();

  /** `after`: the previous worker's end; two threads must never have the same folder open. */
  constructor(init: WorkerInit, private readonly onDeath: (link: WorkerLink, reason: string) => void, after: Promise<unknown> = Promise.resolve()) {
    this.ready = after.then(
      () =>
        new Promise<void>((resolve, reject) => {
          this.worker = startWorker(init);
          const onReady = (message: WorkerResponse) => {
            if (message.id !== 0) return;
            this.worker.off("message", onReady);
            this.worker.unref();
            this.opened = true;
            resolve();
          };
          this.worker.on("message", onReady);
          this.worker.once("error", reject);
          this.worker.once("exit", (code) => reject(new Error(`the embedded database worker exited (code ${code}) while opening`)));
          this.worker.on("message", (message: WorkerResponse) => this.settle(message));
          this.worker.on("error", (error) => this.die(`worker error: ${error.message}`, pgError(PgCode.CRASH_SHUTDOWN, `The embedded database stopped: ${error.message}`)));
          this.worker.on("exit", (code) => this.die(`worker exited (code ${code})`, pgError(PgCode.CRASH_SHUTDOWN, "The embedded database stopped.")));
        }),
    );
    // A failed open is reported by whoever awaits `ready`.
    this.ready.catch(() => undefined);
  }

  /** Sends one message; `timeoutMs` arms the watchdog for it. */
  send(request: Request, timeoutMs: number | undefined): Promise<WorkerResponse & { ok: true }> {
    if (this.dead) return Promise.reject(pgError(PgCode.ADMIN_SHUTDOWN, "The embedded database was restarted; this transaction is gone."));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.die(`a statement ran past ${timeoutMs} ms`, pgError(PgCode.QUERY_CANCELED, "canceling statement due to statement timeout"));
            }, timeoutMs);
      this.inFlight = { resolve, reject, timer };
      // Only a statement in flight keeps the process alive, as a pool's socket would.
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  private settle(message: WorkerResponse): void {
    const call = this.inFlight;
    if (message.id === 0 || !call) return;
    this.inFlight = undefined;
    clearTimeout(call.timer);
    this.worker.unref();
    if (message.ok) call.resolve(message);
    else call.reject(fromWorkerError(message.error));
  }

  /** Fails the statement in flight with `error` and ends the thread (at most once). */
  die(reason: string, error: Error): void {
    if (this.dead) return;
    this.dead = true;
    const call = this.inFlight;
    this.inFlight = undefined;
    if (call) {
      clearTimeout(call.timer);
      call.reject(error);
    }
    this.exited = this.worker.terminate().catch(() => undefined);
    // A worker that never opened is retried by the next call (see live()), not here.
    if (this.opened) this.onDeath(this, reason);
  }

  async close(): Promise<void> {
    if (!this.dead) await this.send({ op: "close" }, undefined);
    this.dead = true;
    await this.worker.terminate();
  }
}

/**
 * Runs tasks one after another: one statement (or one whole transaction) at a
 * time, in the order they came. An urgent task runs next, ahead of the tasks
 * still waiting (never beside the one running): the token check every call
 * starts with is one indexed lookup, and behind a burst of writes it would
 * otherwise wait for all of them, so that a call as small as whoami took as
 * long as the burst.
 */
class SerialQueue {
  private readonly waiting: Array<() => void> = [];
  private readonly urgentWaiting: Array<() => void> = [];
  private running = false;

  async run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    // A task that finishes hands the queue to the next one (running stays true).
    if (this.running) await new Promise<void>((resume) => (urgent ? this.urgentWaiting : this.waiting).push(resume));
    this.running = true;
    try {
      return await task();
    } finally {
      const next = this.urgentWaiting.shift() ?? this.waiting.shift();
      if (next) next();
      else this.running = false;
    }
  }
}

export async function openPglite(options: PgliteOptions): Promise<Database> {
  const init: WorkerInit = { dataDir: options.dataDir, template: options.template, postgres: await compiledPglite(), statementTimeoutMs: options.statementTimeoutMs };
  let closed = false;
  let lost = false;
  const start = (after?: Promise<unknown>): WorkerLink => new WorkerLink(init, onDeath, after);
  function onDeath(link: WorkerLink, reason: string): void {
    if (closed || link !== current) return;
    options.onWorkerRestart?.(reason);
    if (options.dataDir === undefined) {
      lost = true;
      return;
    }
    current = start(link.exited);
  }
  let current = start();
  await current.ready;
  const queue = new SerialQueue();

  /** The live worker, once it has (re)opened the database. */
  async function live(): Promise<WorkerLink> {
    if (closed) throw pgError(PgCode.ADMIN_SHUTDOWN, "The embedded database is closed.");
    if (lost) throw pgError(PgCode.ADMIN_SHUTDOWN, "The in-memory embedded database was discarded after a statement ran past its timeout.");
    const link = current;
    try {
      await link.ready;
    } catch (error) {
      // The folder could not be reopened (yet): this call fails as retryable,
      // and the next one tries a fresh worker.
      if (link === current && !closed) current = start(link.exited);
      throw pgError(PgCode.CANNOT_CONNECT_NOW, `The embedded database could not be opened: ${(error as Error).message}`);
    }
    return link;
  }

  const toResult = <R>(r: WorkerResponse & { ok: true }): QueryResult<R> => ({ rows: ("rows" in r ? (r.rows ?? []) : []) as R[], rowCount: ("rowCount" in r ? r.rowCount : 0) ?? 0 });

  const direct: Queryable = {
    query<R>(sql: string, params?: readonly unknown[], queryOptions?: QueryOptions) {
      return queue.run(async () => toResult<R>(await (await live()).send({ op: "query", sql, params, inTx: false }, options.statementTimeoutMs)), queryOptions?.urgent);
    },
    // Scripts without parameters come from the service itself (vacuum, analyze
    // after an import), never from an agent: no watchdog outside a transaction.
    exec(sql: string) {
      return queue.run(async () => {
        await (await live()).send({ op: "exec", sql, inTx: false }, undefined);
      });
    },
  };

  return {
    kind: "pglite",
    query: direct.query,
    queryBounded: <R>(_timeoutMs: number, sql: string, params?: readonly unknown[]) => direct.query<R>(sql, params),
    exec: direct.exec,
    transaction<T>(work: (tx: Queryable) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      const timeoutMs = txOptions?.statementTimeoutMs ?? options.statementTimeoutMs;
      return queue.run(async () => {
        const link = await live();
        await link.send({ op: "begin", prelude: transactionPrelude(options, txOptions) }, timeoutMs);
        // The work's own statements, in the order it issues them, even when it
        // does not await one before the next.
        const inner = new SerialQueue();
        const tx: Queryable = {
          query: <R>(sql: string, params?: readonly unknown[]) =>
            inner.run(async () => toResult<R>(await link.send({ op: "query", sql, params, inTx: true }, timeoutMs))),
          exec: (sql: string) =>
            inner.run(async () => {
              await link.send({ op: "exec", sql, inTx: true }, timeoutMs);
            }),
        };
        let result: T;
        try {
          result = await work(tx);
        } catch (error) {
          // A worker ended by the watchdog took the transaction with it.
          if (!link.dead) await inner.run(() => link.send({ op: "rollback" }, timeoutMs)).catch(() => undefined);
          throw error;
        }
        await inner.run(() => link.send({ op: "commit" }, timeoutMs));
        return result;
      });
    },
    poolStats(): PoolStats {
      return { total: closed || lost ? 0 : 1, idle: 0, waiting: 0, max: 1 };
    },
    async close() {
      if (closed) return;
      await queue.run(async () => {
        closed = true;
        await current.close().catch(() => undefined);
      });
    },
  };
}
