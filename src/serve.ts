// Starting and stopping the service: open the database, migrate, create the first
// agent on an empty database, listen, and shut down gracefully.
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import type { Logger } from "pino";
import type { AppDeps } from "./app-deps.js";
import { countAgents, createAgent, issueToken } from "./auth/store.js";
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import { loadMigrations, migrate } from "./db/migrate.js";
import { describeDatabase, openDatabase } from "./db/open.js";
import { DomainError } from "./errors.js";
import { createApp } from "./http/app.js";
import { createMetrics } from "./metrics.js";
import { oauthMcpUrl as oauthMcpUrlOf } from "./oauth/routes.js";

export interface RunningService {
  url: string;
  mcpUrl: string;
  /** The connector URL for OAuth clients (claude.ai, ChatGPT…), when OAUTH_MODE is set. */
  oauthMcpUrl: string | undefined;
  /** The owner's token when this start created the owner (first start), else undefined. */
  firstToken: string | undefined;
  db: Database;
  deps: AppDeps;
  /** Stop accepting, let in-flight requests finish (bounded), close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  logger: Logger;
  /** Where the human-readable start-up banner goes (the first token is printed here, never logged). */
  print: (text: string) => void;
  /** An already-open database (tests); otherwise one is opened from config. */
  db?: Database;
}

export async function startService(config: Config, options: StartOptions): Promise<RunningService> {
  const { logger } = options;
  const db = options.db ?? (await openDatabase(config, {
      onIdleError: (error) => logger.warn({ err: error }, "idle database connection lost"),
      onWorkerRestart: (reason) => logger.warn({ reason }, "embedded database worker restarted by the statement watchdog"),
    }));
  let httpServer: Server | undefined;
  try {
    const migrations = await loadMigrations();
    const report = await migrate(db);
    // PGlite has no autovacuum: without fresh statistics (and flushed GIN pending
    // lists) the planner keeps reading whole tables instead of the trigram
    // indexes. Once per start is cheap at embedded sizes.
    if (db.kind === "pglite") await db.exec("vacuum analyze");
    logger.info({ database: describeDatabase(config), applied: report.applied, schemaVersion: report.current }, "database ready");

    let shuttingDown = false;
    const deps: AppDeps = {
      config,
      db,
      logger,
      metrics: createMetrics(() => db.poolStats()),
      expectedMigrations: migrations.length,
      isShuttingDown: () => shuttingDown,
    };
    const firstToken = config.firstStartOwner ? await createOwnerIfEmpty(db, logger) : undefined;

    httpServer = createServer(createApp(deps));
    // Keep-alive must outlast typical load-balancer idle timeouts.
    httpServer.keepAliveTimeout = 65_000;
    httpServer.headersTimeout = 66_000;
    await new Promise<void>((resolve, reject) => {
      httpServer!.once("error", reject);
      httpServer!.listen(config.port, config.host, () => resolve());
    });
    const address = httpServer.address() as AddressInfo;
    const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const url = config.publicUrl ?? `http://${hostForUrl === "0.0.0.0" || hostForUrl === "[::]" ? "localhost" : hostForUrl}:${address.port}`;
    const mcpUrl = `${url}/mcp`;
    logger.info({ url: mcpUrl, database: describeDatabase(config) }, "agent-memory listening");
    const oauthMcpUrl = oauthMcpUrlOf(config);
    options.print(banner(mcpUrl, config, firstToken) + (oauthMcpUrl ? oauthBanner(oauthMcpUrl) : ""));

    const server = httpServer;
    return {
      url,
      mcpUrl,
      oauthMcpUrl,
      firstToken,
      db,
      deps,
      async stop() {
        shuttingDown = true;
        await closeHttpServer(server, config.shutdownTimeoutMs, logger);
        await db.close();
      },
    };
  } catch (error) {
    httpServer?.close();
    if (!options.db) await db.close();
    throw error;
  }
}

async function createOwnerIfEmpty(db: Database, logger: Logger): Promise<string | undefined> {
  if ((await countAgents(db)) > 0) return undefined;
  try {
    await createAgent(db, { name: "owner", kind: "human", writeScopes: ["*"] });
  } catch (error) {
    // Another replica created it first: it prints the token, not us.
    if (error instanceof DomainError && error.code === "conflict") return undefined;
    throw error;
  }
  const { token } = await issueToken(db, "owner", null);
  logger.info({ agent: "owner" }, "first start: created agent owner (human, all scopes) and issued its first token");
  return token;
}

function banner(mcpUrl: string, config: Config, firstToken: string | undefined): string {
  const lines = [``, `agent-memory is serving MCP at ${mcpUrl}`, `database: ${describeDatabase(config)}`];
  if (firstToken) {
    lines.push(
      ``,
      `First start: created agent "owner" (human, all scopes). Its token is shown only now:`,
      ``,
      `  ${firstToken}`,
      ``,
      `Connect Claude Code:`,
      `  claude mcp add --transport http agent-memory ${mcpUrl} --header "Authorization: Bearer ${firstToken}"`,
      ``,
      `Any other MCP client: Streamable HTTP at ${mcpUrl} with the header "Authorization: Bearer <token>".`,
      `Give each agent its own identity:  npx agent-memory agent add blog-writer --scopes shared,blog`,
      `                                   npx agent-memory token issue blog-writer`,
    );
    if (!config.databaseUrl) lines.push(`(With the embedded database, stop the server before running those commands.)`);
  } else {
    lines.push(`Manage agents and tokens: npx agent-memory agent list | token issue NAME (see README).`);
  }
  lines.push(``);
  return lines.join("\n");
}

function oauthBanner(url: string): string {
  return `OAuth clients (claude.ai / Claude Desktop connectors, ChatGPT, VS Code): add ${url} as the connector URL (docs/oauth.md).\n\n`;
}

async function closeHttpServer(server: Server, timeoutMs: number, logger: Logger): Promise<void> {
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
    const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
    const hardStop = setTimeout(() => {
      logger.warn({ timeoutMs }, "shutdown timeout: closing remaining connections");
      server.closeAllConnections();
      finish();
    }, timeoutMs);
    server.closeIdleConnections();
  });
}
