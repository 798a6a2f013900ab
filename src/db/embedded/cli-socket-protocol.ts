// The embedded database of a running service, lent to the CLI: PGlite is one
// process's database, so while `serve` holds the data folder a CLI command
// (export, token issue, ledger void…) sends its statements to the service over
// a Unix socket in that folder and the service runs them on its own database
// (socket-server.ts, socket-client.ts). The command itself runs in the CLI's
// process as usual: its files, output and exit code are its own. The folder is
// private (0700) and the socket 0600, so the file system is the credential, as
// with Postgres' peer authentication or Docker's socket.
//
// Messages are length-prefixed v8 serializations (structured clone: rows with
// Dates, byte arrays and big integers arrive as they left).
import type { Socket } from "node:net";
import { deserialize, serialize } from "node:v8";
import type { QueryOptions, TransactionOptions } from "../core/database.js";
import type { WorkerError } from "./pglite-protocol.js";

/** The socket's name in the data folder. */
export const SOCKET_FILE = "cli.sock";

export type SocketRequest =
  | { id: number; op: "query"; sql: string; params: readonly unknown[] | undefined; options: QueryOptions | undefined; inTx: boolean }
  | { id: number; op: "exec"; sql: string; inTx: boolean }
  /** Opens this connection's transaction on the service's database; its statements follow with inTx. */
  | { id: number; op: "begin"; options: TransactionOptions | undefined }
  | { id: number; op: "commit" }
  | { id: number; op: "rollback" };

export type SocketResponse = { id: number; ok: true; rows?: unknown[]; rowCount?: number } | { id: number; ok: false; error: WorkerError };

export function sendMessage(socket: Socket, message: SocketRequest | SocketResponse): void {
  const body = serialize(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
}

/** Calls `onMessage` for each whole message that arrives on `socket`. */
export function readMessages<T>(socket: Socket, onMessage: (message: T) => void): void {
  let buffered = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4) {
      const length = buffered.readUInt32BE(0);
      if (buffered.length < 4 + length) return;
      const body = buffered.subarray(4, 4 + length);
      buffered = buffered.subarray(4 + length);
      onMessage(deserialize(body) as T);
    }
  });
}
