// The worker thread that owns the embedded database. PGlite runs Postgres as
// WebAssembly on the thread that calls it and cannot interrupt a statement, so
// in the service's own thread one expensive query froze every request, /healthz
// included (~3 s per hostile search_nodes call). Here it only
// blocks this thread; the service's watchdog (pglite.ts) ends the thread when a
// statement runs past the timeout. The service sends one message at a time, so
// this side needs no queue of its own.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { PGLITE_EXTENSIONS, readPgliteImage, TarballBlob } from "./pglite-image.js";
import { toWorkerError, type WorkerInit, type WorkerRequest, type WorkerResponse } from "./pglite-protocol.js";

const port = parentPort!;
const init = workerData as WorkerInit;
const send = (message: WorkerResponse) => port.postMessage(message);

/** Thrown inside db.transaction to make PGlite roll back. */
class Rollback extends Error {}

interface OpenTransaction {
  tx: Transaction;
  /** Ends the transaction callback: true commits, false rolls back. */
  finish(commit: boolean): void;
  /** Settles when PGlite has committed or rolled back. */
  done: Promise<void>;
}

/**
 * What the database starts from: the template asked for; nothing for a folder
 * that holds a cluster already; else the build's initialised cluster, when
 * there is one (PGlite runs initdb when there is none).
 */
async function startingPoint(): Promise<Blob | undefined> {
  if (init.template !== undefined) return new TarballBlob(await readFile(init.template));
  if (init.dataDir !== undefined && existsSync(join(init.dataDir, "PG_VERSION"))) return undefined;
  return readPgliteImage();
}

const db = await PGlite.create(init.dataDir, {
  extensions: PGLITE_EXTENSIONS,
  loadDataDir: await startingPoint(),
  ...(init.postgres !== undefined ? { pgliteWasmModule: init.postgres } : {}),
});
await db.exec(`set statement_timeout = ${Math.trunc(init.statementTimeoutMs)}`);
let open: OpenTransaction | undefined;

function begin(prelude: string): Promise<void> {
  return new Promise<void>((started, failed) => {
    let finish!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (finish = resolve));
    const done = db
      .transaction(async (tx) => {
        await tx.exec(prelude);
        open = { tx, finish, done };
        started();
        if (!(await decided)) throw new Rollback();
      })
      .then(
        () => undefined,
        (error: unknown) => {
          if (error instanceof Rollback) return;
          if (!open) failed(error);
          throw error;
        },
      )
      .finally(() => (open = undefined));
    // A failed BEGIN or prelude reaches `failed`; keep it from being unhandled here.
    done.catch(() => undefined);
  });
}

async function end(commit: boolean): Promise<void> {
  if (!open) throw new Error("no transaction is open");
  const { finish, done } = open;
  finish(commit);
  await done;
}

function target(inTx: boolean): Pick<PGlite, "query" | "exec"> {
  if (!inTx) return db;
  if (!open) throw new Error("no transaction is open");
  return open.tx;
}

async function handle(message: WorkerRequest): Promise<WorkerResponse> {
  switch (message.op) {
    case "query": {
      const r = await target(message.inTx).query(message.sql, message.params as unknown[] | undefined);
      return { id: message.id, ok: true, rows: r.rows, rowCount: r.affectedRows ?? 0 };
    }
    case "exec":
      await target(message.inTx).exec(message.sql);
      return { id: message.id, ok: true };
    case "begin":
      await begin(message.prelude);
      return { id: message.id, ok: true };
    case "commit":
    case "rollback":
      await end(message.op === "commit");
      return { id: message.id, ok: true };
    case "close":
      await db.close();
      return { id: message.id, ok: true };
  }
}

port.on("message", (message: WorkerRequest) => {
  handle(message).then(send, (error: unknown) => send({ id: message.id, ok: false, error: toWorkerError(error) }));
});
send({ id: 0, ok: true, ready: true });
