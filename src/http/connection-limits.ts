// Connections per client address and per process. Past either bound a new
// connection is still accepted, but only to answer its request with 503 and
// Retry-After, then closed: a client told over HTTP retries, while a socket
// destroyed on accept reads as "fetch failed" and its call as lost (ten agents
// on one host sending 500 calls at once would lose about half to resets).
//
// The bounds are set above what a legitimate host reaches (each agent's calls
// already wait in its own queue); they keep one client from holding every slot
// (one client opening 1,000 sockets, each with one request, would hold every
// slot for the 65 s keep-alive). Near the process's bound, idle
// keep-alive sockets give way to new clients.
//
// The address is the socket's own: a reverse proxy is one address, so behind
// one (TRUST_PROXY set) the per-address bound defaults to the whole process's
// and per-client limits belong to the proxy (docs/security.md).
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";

/** Above this share of the process's bound, each new connection first closes the idle keep-alive ones. */
const IDLE_SHEDDING_SHARE = 0.9;
/** What a refused request is told to wait before it retries. */
const CONNECTION_RETRY_AFTER_SECONDS = 1;

interface ConnectionLimits {
  /** Open connections one client address may have served; more are answered 503. */
  perAddress: number;
  /** Open connections the process serves; more are answered 503. */
  total: number;
  /** How long a connection past either bound may take to send its request before it is closed unanswered. */
  refusedRequestWaitMs: number;
}

/**
 * The hard ceiling Node enforces before any of this runs (server.maxConnections):
 * as many again as are served, for connections that are only answered 503.
 * Past it a connection is closed on accept, the last resort of a flood.
 */
const hardConnectionCeiling = (limits: ConnectionLimits) => 2 * limits.total;

function refuse(res: ServerResponse): void {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    error: {
      code: -32000,
      message: `Too many open connections from this address or to this service; this request was not run. Retry in ${CONNECTION_RETRY_AFTER_SECONDS} s, or reuse connections (keep-alive).`,
    },
    id: null,
  });
  res.writeHead(503, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Retry-After": String(CONNECTION_RETRY_AFTER_SECONDS),
    Connection: "close",
  });
  res.end(body);
}

export interface LimitedConnections {
  /** The request listener: `handler` for connections within the bounds, a 503 for the others. */
  listener: RequestListener;
  /**
   * Closes every connection that carries no request: kept alive after its last
   * answer, or opened and never used. For a stopping server, which waits for its
   * connections to end: server.closeIdleConnections() leaves a connection that
   * has sent nothing yet open (a client's aborted call or a browser's
   * preconnect), and the stop would wait out SHUTDOWN_TIMEOUT_MS for it.
   */
  closeUnused(): void;
}

/** Tracks the server's connections: the request listener to serve, and what a stop closes. */
export function limitConnections(server: Server, limits: ConnectionLimits, logger: Logger, handler: RequestListener): LimitedConnections {
  server.maxConnections = hardConnectionCeiling(limits);
  const byAddress = new Map<string, number>();
  // Sockets that answered a request and wait, kept alive, for another. (Not
  // server.closeIdleConnections() near the bound: a new client's socket may be
  // about to send its first request.)
  const idle = new Set<Socket>();
  // Sockets whose first request has not arrived.
  const unused = new Set<Socket>();
  const refused = new WeakSet<Socket>();
  let served = 0;
  server.on("connection", (socket: Socket) => {
    unused.add(socket);
    socket.once("close", () => unused.delete(socket));
    // Near the bound, idle keep-alive sockets give way to the new client
    // (their clients reconnect on their next request).
    if (served + 1 >= limits.total * IDLE_SHEDDING_SHARE) {
      for (const waiting of idle) waiting.destroy();
      idle.clear();
    }
    const address = socket.remoteAddress ?? "unknown";
    const held = byAddress.get(address) ?? 0;
    if (held >= limits.perAddress || served >= limits.total) {
      logger.debug({ held, served }, "connection past a bound: its request is answered 503");
      refused.add(socket);
      socket.setTimeout(limits.refusedRequestWaitMs, () => socket.destroy());
      return;
    }
    byAddress.set(address, held + 1);
    served++;
    socket.once("close", () => {
      served--;
      idle.delete(socket);
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
  });
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    unused.delete(req.socket);
    if (refused.has(req.socket)) return refuse(res);
    idle.delete(req.socket);
    res.once("finish", () => {
      if (!req.socket.destroyed) idle.add(req.socket);
    });
    handler(req, res);
  };
  const closeUnused = () => {
    for (const socket of [...idle, ...unused]) socket.destroy();
  };
  return { listener, closeUnused };
}
