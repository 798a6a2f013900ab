// The service's side of the CLI socket (socket-protocol.ts): each connection
// is one CLI process; its statements run on the service's embedded database,
// in the order the service's other statements wait in (one at a time), its
// transaction as one of them. While a connection holds a transaction open, its
// statements must run inside it (one outside would wait for the transaction
// that waits for it); and a transaction that sees no answered request for
// longer than the statement timeout, a request still waiting included, or
// whose CLI went away, is rolled back, so a stuck command cannot hold the one
// connection every request needs.
import { chmod, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Database, Queryable } from "../core/database.js";
import { toWorkerError } from "./pglite-protocol.js";
import { readMessages, sendMessage, SOCKET_FILE, type SocketRequest } from "./cli-socket-protocol.js";

interface OpenTransaction {
  tx: Queryable;
  finish(commit: boolean): void;
  done: Promise<void>;
}

class RolledBack extends Error {}

function serveConnection(db: Database, socket: Socket, idleMs: number): void {
  let open: OpenTransaction | undefined;
  let idle: NodeJS.Timeout | undefined;
  // One request at a time, in order: a CLI waits for each answer anyway.
  let chain = Promise.resolve();
  const abandon = () => open?.finish(false);
  const armIdle = () => {
    clearTimeout(idle);
    if (open) idle = setTimeout(() => socket.destroy(), idleMs);
  };

  const begin = (options: SocketRequest & { op: "begin" }) =>
    new Promise<void>((started, failed) => {
      let finish!: (commit: boolean) => void;
      const decided = new Promise<boolean>((resolve) => (finish = resolve));
      const done = db
        .transaction(async (tx) => {
          open = { tx, finish, done };
          started();
          if (!(await decided)) throw new RolledBack();
        }, options.options)
        .then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof RolledBack) return;
            if (!open) failed(error);
            throw error;
          },
        )
        .finally(() => (open = undefined));
      done.catch(() => undefined);
    });

  async function handle(request: SocketRequest) {
    const target = (inTx: boolean): Queryable => {
      if (!inTx) {
        if (open) throw new Error("a transaction is open on this connection: run the statement inside it, or commit or roll back first");
        return db;
      }
      if (!open) throw new Error("no transaction is open");
      return open.tx;
    };
    switch (request.op) {
      case "query": {
        const r = await target(request.inTx).query(request.sql, request.params, request.options);
        return { rows: r.rows, rowCount: r.rowCount };
      }
      case "exec":
        await target(request.inTx).exec(request.sql);
        return {};
      case "begin":
        await begin(request);
        return {};
      case "commit":
      case "rollback": {
        if (!open) throw new Error("no transaction is open");
        const { finish, done } = open;
        finish(request.op === "commit");
        await done;
        return {};
      }
    }
  }

  readMessages<SocketRequest>(socket, (request) => {
    chain = chain.then(async () => {
      // The bound runs on while the request waits: a request that never ends
      // must not keep the transaction open past it.
      armIdle();
      try {
        sendMessage(socket, { id: request.id, ok: true, ...(await handle(request)) });
      } catch (error) {
        sendMessage(socket, { id: request.id, ok: false, error: toWorkerError(error) });
      }
      armIdle();
    });
  });
  socket.on("close", () => {
    clearTimeout(idle);
    abandon();
  });
  socket.on("error", () => undefined);
}

export interface CliSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on `<dataDir>/cli.sock` (mode 0600 in the private data folder) for
 * CLI commands. Answers undefined, with a warning, where that cannot be done (a
 * path longer than a socket's address allows): the CLI then refuses as before.
 */
export async function serveCliSocket(db: Database, dataDir: string, idleMs: number, logger: Logger): Promise<CliSocket | undefined> {
  const path = join(dataDir, SOCKET_FILE);
  // The data folder's lock is ours: a socket file left here is a crashed service's.
  await rm(path, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveConnection(db, socket, idleMs);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    await chmod(path, 0o600);
  } catch (error) {
    logger.warn({ err: error, path }, "CLI commands cannot run while this service runs: the socket for them could not be opened");
    server.close();
    return undefined;
  }
  server.unref();
  return {
    path,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(path, { force: true });
    },
  };
}
