#!/usr/bin/env node
// agent-memory: one entry point for the service and its administration.
import { Command, CommanderError } from "commander";
import { SERVICE_VERSION } from "../version.js";
import { registerAgentCommands } from "./commands/agent.js";
import { registerGrantCommands } from "./commands/grant.js";
import { registerGraphCommands } from "./commands/graph.js";
import { registerLedgerCommands } from "./commands/ledger.js";
import { registerMigrateCommand } from "./commands/migrate.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerSnapshotCommands } from "./commands/snapshots.js";
import { registerTokenCommands } from "./commands/token.js";
import { ExitCode, reportError } from "./output.js";

export function buildProgram(): Command {
  const program = new Command("agent-memory")
    .description("Shared, trustworthy memory for teams of AI agents, served over MCP.")
    .version(SERVICE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  registerServeCommand(program);
  registerMigrateCommand(program);
  registerAgentCommands(program);
  registerTokenCommands(program);
  registerGrantCommands(program);
  registerLedgerCommands(program);
  registerGraphCommands(program);
  registerSnapshotCommands(program);
  // Subcommands inherit exitOverride only when set before they are added.
  for (const c of allCommands(program)) c.exitOverride();
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; everything else is a usage error.
      process.exitCode = error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
      if (error.exitCode !== 0 && argv.includes("--json")) {
        process.stdout.write(`${JSON.stringify({ error: { code: "usage", message: error.message.replace(/^error: /, "") } })}\n`);
      }
      return;
    }
    process.exitCode = reportError(error, argv.includes("--json"));
  }
}

await main(process.argv);
