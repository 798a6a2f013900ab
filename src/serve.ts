// Starting and stopping the service: open the database, migrate, create the first
// agent on an empty database, listen, and shut down gracefully.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { createServer, type Server } from "node:http";
import type { Logger } from "pino";
import { type AppDeps, createDeps } from "./app-deps.js";
import { createAgent, FIRST_OWNER, issueToken } from "./auth/store.js";
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import { loadMigrations, migrate } from "./db/migrate.js";
import { type CliSocket, serveCliSocket } from "./db/socket-server.js";
import { embeddedLeftover, leftoverStartNote } from "./db/embedded-leftover.js";
import { dataWithoutAgents, readHoldings, type Holdings } from "./db/holdings.js";
import { announceConsole } from "./db/lock-data-dir.js";
import { describeDatabase, openDatabase, openReadRouter, withConnectionAdvice } from "./db/open.js";
import type { ReadRouter } from "./db/cluster/read-router.js";
import { DomainError } from "./errors.js";
import { banner, oauthBanner, startupDescription } from "./banner.js";
import { segmentOlderFacts } from "./facts/lifecycle/cjk-backfill.js";
import { startHealthSamples } from "./facts/review/health.js";
import { createApp } from "./http/app.js";
import { type LimitedConnections, limitConnections } from "./http/connection-limits.js";
import { oauthMcpUrl as oauthMcpUrlOf } from "./oauth/routes.js";
import { pruneReceipts } from "./receipts.js";

export interface RunningService {
  url: string;
  mcpUrl: string;
  /** The connector URL for OAuth clients (claude.ai, ChatGPT…), when OAUTH_MODE is set. */
  oauthMcpUrl: string | undefined;
  /** The owner's token when this start created the owner (first start), else undefined. */
  firstToken: string | undefined;
  /** Where that token was written (non-interactive first start), else undefined. */
  firstTokenFile: string | undefined;
  db: Database;
  deps: AppDeps;
  /** Stop accepting, let in-flight requests finish (bounded), close the database. */
  stop(): Promise<void>;
}

interface StartOptions {
  logger: Logger;
  /** Where the human-readable start-up banner goes (never the log stream). */
  print: (text: string) => void;
  /**
   * A person is reading the banner at a terminal: the first token is shown in it.
   * Otherwise (containers, --json, redirected output) it is written to
   * config.firstTokenFile (mode 0600) and only that path is shown or logged.
   */
  interactive?: boolean;
  /** An already-open database (tests); otherwise one is opened from config. */
  db?: Database;
}

export async function startService(config: Config, options: StartOptions): Promise<RunningService> {
  const { logger } = options;
  const db = options.db ?? (await openDatabase(config, {
      onIdleError: (error) => logger.warn({ err: error }, "idle database connection lost"),
      onStalePrimary: (survey) =>
        logger.error({ stale: survey.stale, hosts: survey.hosts }, "DATABASE_URL lists an old primary that accepts writes beside the current one (after a failover): it is not used; fence it (docs/replicas.md)"),
      onWorkerRestart: (reason) => logger.warn({ reason }, "embedded database worker restarted by the statement watchdog"),
    }));
  let httpServer: Server | undefined;
  let cliSocket: CliSocket | undefined;
  let reads: ReadRouter | undefined;
  try {
    const migrations = await loadMigrations();
    const report = await migrate(db).catch((error: unknown) => {
      throw withConnectionAdvice(error, config);
    });
    const holdings = await readHoldings(db);
    const halfRestored = dataWithoutAgents(holdings);
    if (halfRestored) throw new Error(halfRestored);
    // PGlite has no autovacuum: without fresh statistics (and flushed GIN pending
    // lists) the planner keeps reading whole tables instead of the trigram
    // indexes. Once per start is cheap at embedded sizes.
    if (db.kind === "pglite") await db.exec("vacuum analyze");
    // Counts, not names: a first start applies every migration, and the list filled a screen.
    const applied = report.applied.length;
    logger.info(
      { database: describeDatabase(config), migrationsApplied: applied, functionsApplied: report.functions.applied.length, schemaVersion: report.current },
      applied > 0 ? `database ready: applied ${applied} migration${applied === 1 ? "" : "s"}` : "database ready",
    );

    // CLI commands run their statements on this database while the service holds it.
    cliSocket = !options.db && !config.databaseUrl ? await serveCliSocket(db, config.dataDir, config.db.statementTimeoutMs, logger) : undefined;

    let shuttingDown = false;
    reads = await openReadRouter(config, db, (replica, state, error) =>
      state === "down" ? logger.warn({ replica, err: error }, "read replica down: its reads go to the primary until it is back") : logger.info({ replica }, "read replica back"),
    );
    const deps = await createDeps(config, db, logger, { expectedMigrations: migrations.length, isShuttingDown: () => shuttingDown, ...(reads ? { reads } : {}) });

    const requestTimeout = config.http.requestTimeoutMs;
    httpServer = createServer({
      // A slow or trickling client holds a socket at most this long (Node's
      // default is 300 s); headers get no longer than the whole request. Node
      // enforces both on a sweep, whose period must be well under the deadline.
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(5_000, Math.max(250, Math.floor(requestTimeout / 4))),
    });
    // Keep-alive must outlast typical load-balancer idle timeouts.
    httpServer.keepAliveTimeout = 65_000;
    const limits = { perAddress: config.http.maxConnectionsPerAddress, total: config.http.maxConnections, refusedRequestWaitMs: config.http.refusedRequestWaitMs };
    const connections = limitConnections(httpServer, limits, logger, createApp(deps));
    httpServer.on("request", connections.listener);
    await new Promise<void>((resolve, reject) => {
      httpServer!.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
      httpServer!.listen(config.port, config.host, () => resolve());
    });
    // The owner is created only once the port is ours: created before a failed
    // listen (port in use), its token would be shown to nobody and every later
    // start would find an owner already there.
    // An empty Postgres beside an embedded database that was not moved: the
    // team's agents and tokens are in that folder, and a new owner here would
    // hide it (agent-memory move copies it, into a database still empty).
    const leftover = config.databaseUrl ? embeddedLeftover(config.dataDir) : undefined;
    const firstToken = config.firstStartOwner && !(leftover && !leftover.moved) ? await createOwnerIfNobody(db, holdings, logger) : undefined;
    const firstTokenFile = firstToken && !options.interactive ? await writeFirstToken(config.firstTokenFile, firstToken, logger) : undefined;
    const address = httpServer.address() as AddressInfo;
    const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const url = config.publicUrl ?? `http://${hostForUrl === "0.0.0.0" || hostForUrl === "[::]" ? "localhost" : hostForUrl}:${address.port}`;
    const mcpUrl = `${url}/mcp`;
    logger.info({ url: mcpUrl, ...startupDescription(config) }, "agent-memory listening");
    // A second process refused the embedded database names this console, not the one its own settings give.
    const unannounce = cliSocket ? await announceConsole(config.dataDir, `${url}/console`) : undefined;
    const oauthMcpUrl = oauthMcpUrlOf(config);
    const leftoverNote = leftover && leftoverStartNote(leftover, describeDatabase(config));
    if (leftoverNote) logger[leftoverNote.level](leftoverNote.fields, leftoverNote.message);
    options.print(
      banner(mcpUrl, config, firstToken, options.interactive ? "shown" : firstTokenFile, { leftover, nobodySignsIn: !holdings.humans && !firstToken }) +
        (oauthMcpUrl ? oauthBanner(oauthMcpUrl) : ""),
    );
    // Facts written before the service split CJK text, or under another
    // dictionary, get their words in the background (recall finds them by
    // substring meanwhile); stop() waits for the batch in progress.
    const segmenting = segmentOlderFacts(db, logger, () => shuttingDown).catch((error: unknown) =>
      logger.warn({ err: error }, "segmenting earlier facts' CJK text failed; the next start tries again"),
    );

    const healthSamples = startHealthSamples(db, config.facts.staleAfterDays, logger, [
      { name: "pruning recall receipts past RECEIPTS_RETENTION_DAYS", run: () => pruneReceipts(db, config.facts.receiptsRetentionDays) },
    ]);

    const server = httpServer;
    const socket = cliSocket;
    const router = reads;
    return {
      url,
      mcpUrl,
      oauthMcpUrl,
      firstToken,
      firstTokenFile,
      db,
      deps,
      async stop() {
        shuttingDown = true;
        await closeHttpServer(server, connections, config.shutdownTimeoutMs, logger);
        // The receipts of the last answers are written before the database closes.
        await deps.receipts.close();
        await segmenting;
        await healthSamples.stop();
        await unannounce?.();
        await socket?.close();
        await router?.close();
        await db.close();
      },
    };
  } catch (error) {
    httpServer?.close();
    await cliSocket?.close();
    await reads?.close();
    if (!options.db) await db.close();
    throw error;
  }
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

/**
 * The owner, on a database where nobody can sign in to the console (no human
 * agent) and nothing is stored yet: a first start, also after agents were
 * added with the CLI before it.
 */
async function createOwnerIfNobody(db: Database, holdings: Holdings, logger: Logger): Promise<string | undefined> {
  if (holdings.humans || holdings.stored.some((s) => s !== "tokens")) return undefined;
  try {
    await createAgent(db, { name: FIRST_OWNER, kind: "human", writeScopes: ["*"] });
  } catch (error) {
    // Another replica created it first: it prints the token, not us.
    if (error instanceof DomainError && error.code === "conflict") return undefined;
    throw error;
  }
  const { token } = await issueToken(db, FIRST_OWNER, null);
  logger.info({ agent: FIRST_OWNER }, "first start: created agent owner (human, all scopes) and issued its first token");
  return token;
}

/**
 * The owner's first token, for a start nobody watches: a file only its user can
 * read (written then renamed, so it is never seen half-written or with a wider
 * mode). The log and the banner say where, never what.
 */
async function writeFirstToken(file: string, token: string, logger: Logger): Promise<string | undefined> {
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    // A fresh random name, created exclusively ("wx": never through a file or
    // link someone placed there beforehand, in case the folder is shared),
    // then renamed over the target: rename replaces a link, never follows it.
    const partial = `${file}.${randomBytes(12).toString("hex")}.partial`;
    await writeFile(partial, `${token}\n`, { mode: 0o600, flag: "wx" });
    await chmod(partial, 0o600);
    await rename(partial, file);
    logger.info({ agent: "owner", file }, "first start: the owner's token was written to a file readable only by this user");
    return file;
  } catch (error) {
    logger.warn({ err: error, file }, "first start: could not write the owner's token file; issue a token with: agent-memory token issue owner");
    return undefined;
  }
}

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
