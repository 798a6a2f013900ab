// The third step of a start: the HTTP server listening with the connection
// limits, and its graceful close (in-flight requests finish, bounded).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import { type LimitedConnections, limitConnections } from "../http/connection-limits.js";
import type { Teardown } from "./teardown.js";

/** Listens on config's HOST:PORT; the server's close is pushed onto the teardown. */
export async function listen(config: Config, app: Express, logger: Logger, teardown: Teardown): Promise<AddressInfo> {
  const requestTimeout = config.http.requestTimeoutMs;
  const server = createServer({
    // A slow or trickling client holds a socket at most this long (Node's
    // default is 300 s); headers get no longer than the whole request. Node
    // enforces both on a sweep, whose period must be well under the deadline.
    requestTimeout,
    headersTimeout: requestTimeout,
    connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(requestTimeout / 4))),
  });
  // Keep-alive must outlast typical load-balancer idle timeouts.
  server.keepAliveTimeout = 65_000;
  const limits = { perAddress: config.http.maxConnectionsPerAddress, total: config.http.maxConnections, refusedRequestWaitMs: config.http.refusedRequestWaitMs };
  const connections = limitConnections(server, limits, logger, app);
  server.on("request", connections.listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
    server.listen(config.port, config.host, () => resolve());
  });
  teardown.push("the HTTP server", () => closeHttpServer(server, connections, config.shutdownTimeoutMs, logger));
  return server.address() as AddressInfo;
}

/** A listen failure a newcomer can act on: which address, and what to change. */
function listenError(error: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  if (error.code === "EADDRINUSE") {
    return new Error(`Port ${config.port} is already in use on ${config.host}: stop what is using it, or start with another port, e.g. PORT=${config.port + 1} npm start.`, { cause: error });
  }
  if (error.code === "EACCES") {
    return new Error(`Not allowed to listen on ${where}: use a port above 1023 (PORT=8080) or run with the rights to bind it.`, { cause: error });
  }
  if (error.code === "EADDRNOTAVAIL") {
    return new Error(`HOST=${config.host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its interfaces.`, { cause: error });
  }
  return error;
}

/** Stops accepting, lets in-flight requests finish and closes idle connections; past timeoutMs closes the rest. */
async function closeHttpServer(server: Server, connections: LimitedConnections, timeoutMs: number, logger: Logger): Promise<void> {
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(idleSweep);
      clearTimeout(hardStop);
      resolve();
    };
    server.close(() => finish());
    // Connections that go idle after their last response are closed as they free up.
    const idleSweep = setInterval(() => connections.closeUnused(), 100);
    const hardStop = setTimeout(() => {
      logger.warn({ timeoutMs }, "shutdown timeout: closing remaining connections");
      server.closeAllConnections();
      finish();
    }, timeoutMs);
    connections.closeUnused();
  });
}
