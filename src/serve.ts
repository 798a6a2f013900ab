// Starting and stopping the service, as five named steps (src/start/): prepare
// the database, build the dependencies, listen, the first start, and the
// background jobs. Everything a step opens is pushed onto one teardown, which
// stop() and a start that fails halfway both run, in reverse.
import type { Logger } from "pino";
import type { AppDeps } from "./app-deps.js";
import { firstStart } from "./auth/first-start.js";
import type { Config } from "./config/index.js";
import type { Database } from "./db/core/database.js";
import { embeddedLeftover } from "./db/embedded/leftover.js";
import { createApp } from "./http/app.js";
import { addressesOf, announce } from "./start/announce.js";
import { prepareDatabase } from "./start/database.js";
import { buildServiceDeps } from "./start/deps.js";
import { listen } from "./start/http-server.js";
import { backgroundJobs, startJobs } from "./start/jobs.js";
import { Teardown } from "./start/teardown.js";

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
  /** An already-open database (tests), which the caller closes; otherwise one is opened from config. */
  db?: Database;
}

export async function startService(config: Config, options: StartOptions): Promise<RunningService> {
  const { logger } = options;
  const interactive = options.interactive ?? false;
  const teardown = new Teardown(logger);
  let shuttingDown = false;
  try {
    const { db, holdings, migrations } = await prepareDatabase(config, logger, teardown, options.db);
    const holdsDataDir = !options.db && !config.databaseUrl;
    const deps = await buildServiceDeps(config, db, logger, teardown, { expectedMigrations: migrations, isShuttingDown: () => shuttingDown, servesCliSocket: holdsDataDir });
    const addresses = addressesOf(config, await listen(config, createApp(deps), logger, teardown));

    // An empty Postgres beside an embedded database that was not moved: the
    // team's agents and tokens are in that folder, and a new owner here would
    // hide it (agent-memory move copies it, into a database still empty).
    const leftover = config.databaseUrl ? embeddedLeftover(config.dataDir) : undefined;
    const first = config.firstStartOwner && !(leftover && !leftover.moved)
      ? await firstStart(db, holdings, { interactive, tokenFile: config.firstTokenFile, logger })
      : { token: undefined, tokenFile: undefined };
    await announce(config, logger, teardown, { addresses, first, leftover, nobodySignsIn: !holdings.humans && !first.token, holdsDataDir, interactive, print: options.print });

    startJobs(backgroundJobs(config, db, logger, () => shuttingDown, deps.embeddings), logger, teardown);
    return {
      ...addresses,
      firstToken: first.token,
      firstTokenFile: first.tokenFile,
      db,
      deps,
      async stop() {
        shuttingDown = true;
        await teardown.close();
      },
    };
  } catch (error) {
    shuttingDown = true;
    await teardown.close();
    throw error;
  }
}
