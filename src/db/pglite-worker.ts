// The worker thread that owns the embedded database. PGlite runs Postgres as
// WebAssembly on the thread that calls it and cannot interrupt a statement, so
// in the service's own thread one expensive query froze every request, /healthz
// included (~3 s per hostile search_nodes call). Here it only
// blocks this thread; the service's watchdog (pglite.ts) ends the thread when a
// statement runs past the timeout. The service sends one message at a time, so
// this side needs no queue of its own.
import { readFile } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
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

const loadDataDir = init.template === undefined ? undefined : new Blob([await readFile(init.template)]);
const db = await PGlite.create(init.dataDir, { extensions: { pg_trgm, btree_gin }, loadDataDir });
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
