#!/usr/bin/env node
// agent-memory: one entry point for the service and its administration.
import { Command, CommanderError, Help, type Option } from "commander";
import { SERVICE_VERSION } from "../version.js";
import { registerAgentCommands } from "./commands/agent.js";
import { registerGrantCommands } from "./commands/grant.js";
import { registerGraphCommands } from "./commands/graph.js";
import { registerRedactCommands } from "./commands/redact.js";
import { registerLedgerCommands } from "./commands/ledger.js";
import { registerMigrateCommand } from "./commands/migrate.js";
import { registerMoveCommand } from "./commands/move.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerSnapshotCommands } from "./commands/snapshots.js";
import { registerTokenCommands } from "./commands/token.js";
import { ExitCode, reportError } from "./output.js";

/** `json`: the command line has --json, so usage errors are printed once, as JSON, by main (not also as text by commander). */
export function buildProgram(options: { json?: boolean } = {}): Command {
  const program = new Command("agent-memory")
    .description("Shared, trustworthy memory for teams of AI agents, served over MCP.")
    .version(SERVICE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    // Commander lists required options among the optional ones: say which are required (inherited by every subcommand).
    .configureHelp({
      optionDescription(this: Help, option: Option) {
        const text = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${text} (required)` : text;
      },
    });
  // Set before the subcommands are added, so that they inherit it.
  if (options.json) program.configureOutput({ outputError: () => undefined, writeErr: () => undefined });
  registerServeCommand(program);
  registerMigrateCommand(program);
  registerMoveCommand(program);
  registerAgentCommands(program);
  registerTokenCommands(program);
  registerGrantCommands(program);
  registerLedgerCommands(program);
  registerRedactCommands(program, registerGraphCommands(program));
  registerSnapshotCommands(program);
  // Subcommands inherit exitOverride only when set before they are added.
  for (const c of allCommands(program)) {
    c.exitOverride();
    // The usage line names the required options too ("[options]" alone read as if none were).
    const required = c.options.filter((o) => o.mandatory);
    if (required.length > 0) c.usage(`${c.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? "..." : ""}>` : `[${a.name()}${a.variadic ? "..." : ""}]`)).join(" ")} ${required.map((o) => o.flags).join(" ")} [options]`.trim());
  }
  return program;
}

function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

async function main(argv: string[]): Promise<void> {
  const json = argv.includes("--json");
  try {
    await buildProgram({ json }).parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; everything else is a usage error.
      process.exitCode = error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
      if (error.exitCode !== 0 && json) {
        process.stdout.write(`${JSON.stringify({ error: { code: "usage", message: error.message.replace(/^error: /, "") } })}\n`);
      }
      return;
    }
    process.exitCode = reportError(error, json);
  }
}

await main(process.argv);
