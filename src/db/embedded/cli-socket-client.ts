// The CLI's side of the socket (socket-protocol.ts): a Database whose
// statements run on the running service's embedded database.
import { connect, type Socket } from "node:net";
import type { Database, Queryable, QueryOptions, QueryResult, TransactionOptions } from "../core/database.js";
import { fromWorkerError } from "./pglite-protocol.js";
import { readMessages, sendMessage, type SocketRequest, type SocketResponse } from "./cli-socket-protocol.js";

type Request = SocketRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

/** Connects to the socket at `path`; null when nothing listens there (no running service, or one from before). */
export async function connectSocketDatabase(path: string): Promise<Database | null> {
  const socket = await new Promise<Socket | null>((resolve) => {
    const s = connect(path);
    s.once("connect", () => resolve(s));
    s.once("error", () => resolve(null));
  });
  if (!socket) return null;
  const pending = new Map<number, { resolve: (r: SocketResponse & { ok: true }) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let gone: Error | undefined;
  readMessages<SocketResponse>(socket, (message) => {
    const call = pending.get(message.id);
    if (!call) return;
    pending.delete(message.id);
    if (message.ok) call.resolve(message);
    else call.reject(fromWorkerError(message.error));
  });
  socket.on("error", () => undefined);
  socket.on("close", () => {
    gone = new Error("The running agent-memory service closed the connection (it stopped, or this command left a transaction idle too long).");
    for (const call of pending.values()) call.reject(gone);
    pending.clear();
  });

  const send = (request: Request): Promise<SocketResponse & { ok: true }> =>
    new Promise((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      sendMessage(socket, { ...request, id } as SocketRequest);
    });
  const queryable = (inTx: boolean): Queryable => ({
    async query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
      const r = await send({ op: "query", sql, params, options, inTx });
      return { rows: (r.rows ?? []) as R[], rowCount: r.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await send({ op: "exec", sql, inTx });
    },
  });
  const outside = queryable(false);

  return {
    kind: "pglite",
    query: outside.query,
    exec: outside.exec,
    queryBounded: (_timeoutMs, sql, params, options) => outside.query(sql, params, options),
    async transaction<T>(work: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
      await send({ op: "begin", options });
      let result: T;
      try {
        result = await work(queryable(true));
      } catch (error) {
        await send({ op: "rollback" }).catch(() => undefined);
        throw error;
      }
      await send({ op: "commit" });
      return result;
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0, max: 1 }),
    async close() {
      socket.end();
    },
  };
}
