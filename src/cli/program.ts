// The agent-memory program: every command, and running it on a command line
// with given streams and environment (runProgram), in this process. main.ts
// runs it as the process's own; tests run it in theirs.
import { Command, CommanderError, Help, type Option } from "commander";
import { SERVICE_VERSION } from "../version.js";
import { registerAgentCommands } from "./commands/agent.js";
import { registerEmbeddingsCommands } from "./commands/embeddings.js";
import { registerGrantCommands } from "./commands/grant.js";
import { registerGraphCommands } from "./commands/graph.js";
import { registerRedactCommands } from "./commands/redact.js";
import { registerLedgerCommands } from "./commands/ledger.js";
import { registerMigrateCommand } from "./commands/migrate.js";
import { registerMoveCommand } from "./commands/move.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerSnapshotCommands } from "./commands/snapshots.js";
import { registerTokenCommands } from "./commands/token.js";
import { bindRun, type CliIo, processIo } from "./io.js";
import { ExitCode, reportError } from "./output.js";

/** `json`: the command line has --json, so usage errors are printed once, as JSON, by runProgram (not also as text by commander). */
function buildProgram(io: CliIo, options: { json?: boolean } = {}): Command {
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
  program.configureOutput({
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    ...(options.json ? { outputError: () => undefined, writeErr: () => undefined } : {}),
  });
  registerServeCommand(program);
  registerMigrateCommand(program);
  registerMoveCommand(program);
  registerAgentCommands(program);
  registerTokenCommands(program);
  registerGrantCommands(program);
  registerLedgerCommands(program);
  registerRedactCommands(program, registerGraphCommands(program));
  registerSnapshotCommands(program);
  registerEmbeddingsCommands(program);
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

/** Runs one command line (argv as process.argv has it: node, the script, then the arguments) and answers its exit code. */
export async function runProgram(argv: string[], io: CliIo = processIo()): Promise<number> {
  const json = argv.includes("--json");
  const program = buildProgram(io, { json });
  const run = bindRun(program, io);
  try {
    await program.parseAsync(argv);
    return run.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; everything else is a usage error.
      if (error.exitCode !== 0 && json) {
        io.stdout.write(`${JSON.stringify({ error: { code: "usage", message: error.message.replace(/^error: /, "") } })}\n`);
      }
      return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    return reportError(error, json, io);
  }
}
