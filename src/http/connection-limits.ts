// Connections per client address, and idle keep-alive sockets giving way when
// the process nears HTTP_MAX_CONNECTIONS (security audit: one client opening
// 1,000 sockets, each with one request, held every slot for the 65 s
// keep-alive and the service refused everyone else, /healthz included).
//
// The address is the socket's own: a reverse proxy is one address, so behind
// one (TRUST_PROXY set) the per-address bound defaults to the whole process's
// and per-client limits belong to the proxy (docs/security.md).
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";

/** Above this share of HTTP_MAX_CONNECTIONS, each new connection first closes the idle keep-alive ones. */
const IDLE_SHEDDING_SHARE = 0.9;

export interface ConnectionLimits {
  /** Open connections one client address may hold; more are closed on accept. */
  perAddress: number;
  /** The process's bound (server.maxConnections, enforced by Node before this runs). */
  total: number;
}

export function limitConnections(server: Server, limits: ConnectionLimits, logger: Logger): void {
  const byAddress = new Map<string, number>();
  // Sockets that answered a request and wait, kept alive, for another. (Not
  // server.closeIdleConnections(): it also closes connections whose first
  // request has not arrived yet, the new client's own among them.)
  const idle = new Set<Socket>();
  let open = 0;
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const held = byAddress.get(address) ?? 0;
    if (held >= limits.perAddress) {
      logger.debug({ held }, "connection refused: too many open from one address");
      socket.destroy();
      return;
    }
    byAddress.set(address, held + 1);
    open++;
    socket.once("close", () => {
      open--;
      idle.delete(socket);
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    });
    // Near the bound, idle keep-alive sockets give way to the new client
    // (their clients reconnect on their next request).
    if (open >= limits.total * IDLE_SHEDDING_SHARE) {
      for (const waiting of idle) waiting.destroy();
      idle.clear();
    }
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    idle.delete(req.socket);
    res.once("finish", () => {
      if (!req.socket.destroyed) idle.add(req.socket);
    });
  });
}
