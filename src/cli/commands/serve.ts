// serve: run the HTTP service until SIGTERM/SIGINT/SIGHUP, then shut down gracefully.
// With WORKERS > 1 this process becomes the primary of that many workers
// (../workers.ts), each of which runs this same command.
import cluster from "node:cluster";
import type { Command } from "commander";
import { loadConfig } from "../../config/index.js";
import { createServiceLogger } from "../../logger.js";
import { restrictFileModes } from "../file-modes.js";
import type { Output } from "../output.js";
import { stopOnHangup } from "../hangup.js";
import { action } from "../run.js";
import { checkWorkers, runPrimary, STARTED_MESSAGE, type StartedMessage } from "../workers.js";

/**
 * The settings a first day needs, after `serve --help`'s options: the service is
 * configured by environment variables, not flags. Defaults come from the config
 * parser itself (an empty environment), so the help cannot drift from them.
 */
function firstDaySettings(): string {
  const defaults = loadConfig({});
  const rows: Array<[string, string]> = [
    [`PORT=${defaults.port}`, "port to listen on, e.g. PORT=3000 npm start"],
    [`HOST=${defaults.host}`, "interface to bind; 0.0.0.0 to accept other machines"],
    ["DATABASE_URL=", "Postgres (postgres://user@host:5432/db); unset: the embedded database"],
    [`AGENT_MEMORY_DATA_DIR=${defaults.dataDir}`, "folder of the embedded database"],
    ["PUBLIC_URL=", "the URL agents use, when behind a proxy (https://memory.example.com)"],
    [`LOG_LEVEL=${defaults.logLevel} LOG_FORMAT=${defaults.logFormat}`, "how much to log, and in which form"],
  ];
  const width = Math.max(...rows.map(([setting]) => setting.length)) + 2;
  return [
    "",
    "Settings are environment variables; defaults shown:",
    ...rows.map(([setting, what]) => `  ${setting.padEnd(width)}${what}`),
    "Every setting: docs/configuration.md (and .env.example) in the repository.",
  ].join("\n");
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("start the MCP service (embedded database unless DATABASE_URL is set)")
    .option("--json", "print one JSON object with the URL once listening (logs stay JSON on stdout)")
    .addHelpText("after", firstDaySettings)
    .action(
      action(async (out: Output) => {
        const config = loadConfig(out.io.env);
        restrictFileModes(config);
        // --json is for a program reading stdout: its log lines stay JSON unless asked otherwise.
        const logger = await createServiceLogger(config.logLevel, out.json && config.logFormat === "auto" ? "json" : config.logFormat);
        checkWorkers(config);
        // What a person or a script reads once the service listens: the banner
        // on stderr (never into the JSON log stream on stdout), or one JSON object.
        const announce = ({ banner, result }: Omit<StartedMessage, "type">) => {
          if (out.json) out.result(result, () => "");
          else out.io.stderr.write(`${banner}\n`);
        };
        if (cluster.isPrimary && config.workers > 1) {
          await runPrimary(config, { logger, announce });
          return;
        }
        // Loaded here, not with the CLI: the HTTP service (Express, the MCP SDK,
        // every capability) is most of what the CLI would load, and only serve needs it.
        const { startService } = await import("../../serve.js");
        let banner = "";
        const service = await startService(config, {
          logger,
          print: (text) => void (banner += text),
          // Only a person at a terminal sees the first token; any other start
          // (containers, --json, redirected output) gets it in a 0600 file.
          interactive: !out.json && out.io.stderr.isTTY === true,
        });
        // The object names the token file, never the token: stdout is the log stream too.
        const result = {
          url: service.mcpUrl,
          database: service.db.kind,
          ...(service.oauthMcpUrl ? { oauthMcpUrl: service.oauthMcpUrl } : {}),
          ...(service.firstTokenFile ? { firstTokenFile: service.firstTokenFile } : {}),
        };
        if (cluster.isWorker) {
          // The primary announces once for all workers; the IPC channel must not keep this process alive after shutdown.
          process.send!({ type: STARTED_MESSAGE, banner, result } satisfies StartedMessage);
          process.channel?.unref();
        } else announce({ banner, result });
        await new Promise<void>((resolve) => {
          const stop = (signal: NodeJS.Signals): Promise<void> => {
            logger.info({ signal }, "shutting down: finishing in-flight requests");
            return service.stop().then(
              () => {
                logger.info("stopped");
                resolve();
              },
              (error: unknown) => {
                logger.error({ err: error }, "error during shutdown");
                out.fail(1);
                resolve();
              },
            );
          };
          // A worker gets SIGINT from the terminal and SIGTERM from its primary: stop once.
          let stopping: Promise<void> | undefined;
          const shutdown = (signal: NodeJS.Signals) => (stopping ??= stop(signal));
          process.once("SIGTERM", shutdown);
          process.once("SIGINT", shutdown);
          // The terminal closed: the same stop, so the embedded database is closed (Node's default
          // exits at once), but silent and ending by SIGHUP (../hangup.ts says why).
          stopOnHangup(logger, config.shutdownTimeoutMs + 5_000, shutdown);
        });
      }),
    );
}
