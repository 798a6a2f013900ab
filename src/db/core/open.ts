// Chooses the backend from config: Postgres when DATABASE_URL is set, otherwise
// the embedded database in the data folder.
import type { Config } from "../../config/index.js";
import type { Database } from "./database.js";
import { prepareDataDir, restrictDataDirFiles } from "../embedded/data-dir-modes.js";
import { join } from "node:path";
import { DataDirBusyError, lockDataDir } from "../embedded/data-dir-holder.js";
import { openPglite } from "../embedded/pglite.js";
import { openPostgres } from "../postgres/postgres.js";
import { connectionFailure } from "../postgres/connect-errors.js";
import type { HostSurvey } from "../postgres/host-selector.js";
import { describeHosts, parseHostList } from "../../config/host-list.js";
import { ReadRouter, type ReplicaState } from "../postgres/read-router.js";
import { connectSocketDatabase } from "../embedded/cli-socket-client.js";
import { SOCKET_FILE } from "../embedded/cli-socket-protocol.js";

interface OpenOptions {
  onIdleError?: (error: Error) => void;
  /** A search of DATABASE_URL's hosts found an old primary writable beside the current one. */
  onStalePrimary?: (survey: HostSurvey) => void;
  /** The embedded database's watchdog ended its worker (a statement ran too long) and started another. */
  onWorkerRestart?: (reason: string) => void;
  /**
   * When a running service holds the embedded database, use it through its CLI
   * socket (cli-socket-protocol.ts) instead of refusing: for CLI commands, never
   * for a second service.
   */
  viaRunningService?: boolean;
}

export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<Database> {
  const timeouts = { statementTimeoutMs: config.db.statementTimeoutMs, lockTimeoutMs: config.db.lockTimeoutMs };
  if (config.databaseUrl) {
    return openPostgres({
      ...timeouts,
      connectionString: config.databaseUrl,
      poolMax: config.db.poolMax,
      connectTimeoutMs: config.db.connectTimeoutMs,
      onIdleError: options.onIdleError,
      onStalePrimary: options.onStalePrimary,
    });
  }
  await prepareDataDir(config.dataDir);
  let unlock: () => Promise<void>;
  try {
    unlock = await lockDataDir(config.dataDir, consoleUrlOf(config));
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || !options.viaRunningService) throw error;
    const lent = await connectSocketDatabase(join(config.dataDir, SOCKET_FILE));
    if (lent) return lent;
    throw error;
  }
  let db: Database;
  try {
    db = await openPglite({ ...timeouts, dataDir: config.dataDir, onWorkerRestart: options.onWorkerRestart });
    await restrictDataDirFiles(config.dataDir);
  } catch (error) {
    await unlock();
    throw error;
  }
  return {
    ...db,
    async close() {
      await db.close();
      await unlock();
    },
  };
}

/** The web console of a server started with this config (as its banner prints it). */
function consoleUrlOf(config: Config): string {
  if (config.publicUrl) return `${config.publicUrl}/console`;
  const host = ["0.0.0.0", "::"].includes(config.host) ? "localhost" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}/console`;
}

/** Where the data lives, for log lines and the start-up banner. Never prints a password. */
export function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `embedded Postgres (PGlite) in ${config.dataDir}`;
  try {
    const list = parseHostList(config.databaseUrl, "DATABASE_URL");
    if (list) return `Postgres at ${describeHosts(list.hosts)}${new URL(list.urlFor(list.hosts[0]!)).pathname} (target_session_attrs=${list.sessionAttrs})`;
    const url = new URL(config.databaseUrl);
    return `Postgres at ${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "Postgres (DATABASE_URL)";
  }
}

/** DATABASE_READ_URL's replicas as the banner and the start-up log name them (hosts, never credentials), or undefined without any. */
export function describeReadReplicas(config: Config): string | undefined {
  if (!config.databaseReadUrl) return undefined;
  let hosts: string;
  try {
    const list = parseHostList(config.databaseReadUrl, "DATABASE_READ_URL");
    hosts = list ? describeHosts(list.hosts) : hostOfUrl(config.databaseReadUrl);
  } catch {
    hosts = "DATABASE_READ_URL";
  }
  return `${hosts} (reads at most ${config.db.readMaxLagMs} ms behind the primary; an agent's own writes read on the primary)`;
}

/** The first statement's failure to reach DATABASE_URL's database, with what to run instead of the driver's words; other errors as they are. */
export function withConnectionAdvice(error: unknown, config: Config): unknown {
  return (config.databaseUrl && connectionFailure(error, config.databaseUrl, "DATABASE_URL")) || error;
}

/**
 * The read router over DATABASE_READ_URL's replicas (one per host of its host
 * list), or undefined without one. Its first position check has run when it resolves.
 */
export async function openReadRouter(config: Config, primary: Database, onStateChange?: (replica: string, state: ReplicaState, error?: unknown) => void): Promise<ReadRouter | undefined> {
  if (!config.databaseReadUrl || primary.kind !== "postgres") return undefined;
  const list = parseHostList(config.databaseReadUrl, "DATABASE_READ_URL");
  const urls = list ? list.hosts.map((h) => ({ name: describeHosts([h]), url: list.urlFor(h) })) : [{ name: hostOfUrl(config.databaseReadUrl), url: config.databaseReadUrl }];
  const replicas = urls.map(({ name, url }) => ({
    name,
    db: openPostgres({
      statementTimeoutMs: config.db.statementTimeoutMs,
      lockTimeoutMs: config.db.lockTimeoutMs,
      connectionString: url,
      poolMax: config.db.poolMax,
      connectTimeoutMs: config.db.connectTimeoutMs,
      applicationName: "agent-memory reads",
      setting: "DATABASE_READ_URL",
    }),
  }));
  const router = new ReadRouter(primary, replicas, config.db.readMaxLagMs, onStateChange);
  await router.start();
  return router;
}

function hostOfUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}`;
  } catch {
    return "replica";
  }
}
