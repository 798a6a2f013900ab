// serve: run the HTTP service until SIGTERM/SIGINT, then shut down gracefully.
import type { Command } from "commander";
import { loadConfig } from "../../config.js";
import { createLogger } from "../../logger.js";
import { startService } from "../../serve.js";
import { restrictFileModes } from "../file-modes.js";
import type { Output } from "../output.js";
import { action } from "../run.js";

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("start the MCP service (embedded database unless DATABASE_URL is set)")
    .option("--json", "print one JSON object with the URL once listening (logs stay JSON on stdout)")
    .action(
      action(async (out: Output) => {
        const config = loadConfig();
        restrictFileModes(config);
        const logger = createLogger(config.logLevel);
        const service = await startService(config, {
          logger,
          // The banner goes to stderr, never into the JSON log stream on stdout.
          print: (text) => (out.json ? undefined : process.stderr.write(`${text}\n`)),
          // Only a person at a terminal sees the first token; any other start
          // (containers, --json, redirected output) gets it in a 0600 file.
          interactive: !out.json && process.stderr.isTTY === true,
        });
        // The object names the token file, never the token: stdout is the log stream too.
        if (out.json)
          out.result(
            {
              url: service.mcpUrl,
              database: service.db.kind,
              ...(service.oauthMcpUrl ? { oauthMcpUrl: service.oauthMcpUrl } : {}),
              ...(service.firstTokenFile ? { firstTokenFile: service.firstTokenFile } : {}),
            },
            () => "",
          );
        await new Promise<void>((resolve) => {
          const shutdown = (signal: NodeJS.Signals) => {
            logger.info({ signal }, "shutting down: finishing in-flight requests");
            service.stop().then(
              () => {
                logger.info("stopped");
                resolve();
              },
              (error: unknown) => {
                logger.error({ err: error }, "error during shutdown");
                process.exitCode = 1;
                resolve();
              },
            );
          };
          process.once("SIGTERM", shutdown);
          process.once("SIGINT", shutdown);
        });
      }),
    );
}
