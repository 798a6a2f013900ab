// graph import FILE | graph export [FILE]: move a knowledge graph in and out in
// the reference server's memory.jsonl format.
import { createSecretGuard } from "../../secrets/guard.js";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { once } from "node:events";
import type { Command } from "commander";
import { assertCanWrite } from "../../auth/scopes.js";
import { callerOf, getAgent } from "../../auth/store.js";
import { loadConfig } from "../../config/index.js";
import { conflict } from "../../errors.js";
import { exportGraph, importGraph, type ImportReport, resolveScope } from "../../graph/index.js";
import { openImportFile } from "../../import-file.js";
import { IMPORT_FILES } from "../../limits.js";
import { withDatabase } from "../context.js";
import { ExitCode, UsageError, type Output } from "../output.js";
import { action } from "../run.js";

const DEFAULT_IMPORT_AGENT = "owner";
const PROGRESS_EVERY_MS = 250;

export function registerGraphCommands(program: Command): Command {
  const graph = program.command("graph").description("import, export or redact the knowledge graph (import and export: the memory.jsonl format of @modelcontextprotocol/server-memory)");

  graph
    .command("import")
    .description("import a memory.jsonl (or older memory.json) file; safe to repeat: what is already there is skipped")
    .argument("<file>", "the reference server's memory file")
    .option("--scope <scope>", "graph scope to import into", "shared")
    .option("--as <agent>", "agent recorded as the creator of what is imported", DEFAULT_IMPORT_AGENT)
    .option("--json", "print one JSON object")
    .addHelpText("after", "\nInvalid lines are skipped and listed; the valid ones are imported. The exit code is then 1 (as for `import`), 2 for bad arguments.")
    .action(
      action(async (out: Output, file: string, opts: { scope: string; as: string }) => {
        const scope = resolveScope(opts.scope);
        const config = loadConfig(out.io.env);
        const maxChars = config.limits.graphTextMaxChars;
        const secrets = createSecretGuard(config.secretGuard);
        // A regular file within IMPORT_FILES.graph, refused otherwise before a byte is read.
        const input = await openImportFile(file, IMPORT_FILES.graph);
        const progress = out.io.stderr.isTTY ? progressLine(out.io.stderr) : undefined;
        const report = await withDatabase(out.io, async (db) => {
          const agent = await getAgent(db, opts.as).catch(() => {
            throw new UsageError(`No agent named "${opts.as}" to record as the creator: pass --as AGENT (see: agent-memory agent list).`);
          });
          if (agent.disabledAt) throw conflict(`Agent "${agent.name}" is disabled; enable it or pass another --as AGENT.`);
          assertCanWrite(callerOf(agent), scope);
          return importGraph(db, { scope, agentId: agent.id, maxChars }, input.lines(), { secrets, onProgress: progress?.update });
        }).finally(() => input.close());
        progress?.done();
        out.result({ file, scope, as: opts.as, ...report }, () => importSummary(file, scope, opts.as, report));
        // Skipped invalid lines are a failure for scripts, as in `import`.
        if (report.invalidCount > 0) out.fail(ExitCode.FAILURE);
      }),
    );

  graph
    .command("export")
    .description("write the graph as memory.jsonl, to FILE or to standard output")
    .argument("[file]", "where to write (replaced atomically); omit or - for standard output")
    .option("--scope <scope>", "graph scope to export", "shared")
    .option("--json", "print one JSON object (needs FILE: the graph itself goes to standard output otherwise)")
    .action(
      action(async (out: Output, file: string | undefined, opts: { scope: string; json?: boolean }) => {
        const scope = resolveScope(opts.scope);
        const toStdout = file === undefined || file === "-";
        if (toStdout && opts.json) throw new UsageError("--json needs FILE: without it the graph itself is written to standard output.");
        const report = await withDatabase(out.io, async (db) => {
          if (toStdout) return exportGraph(db, scope, (chunk) => writeChunk(out.io.stdout, chunk));
          // Like the reference's saveGraph: a temp file beside the target, renamed over it when complete.
          const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
          const stream = createWriteStream(temp, { encoding: "utf8" });
          try {
            const result = await exportGraph(db, scope, (chunk) => writeChunk(stream, chunk));
            stream.end();
            await once(stream, "finish");
            await rename(temp, file);
            return result;
          } catch (error) {
            stream.destroy();
            await rm(temp, { force: true });
            throw error;
          }
        });
        if (toStdout) {
          // memory.jsonl ends without a newline, as the reference writes it; at a
          // terminal the summary would otherwise run into its last line.
          const apart = out.io.stdout.isTTY && report.entities + report.relations > 0 ? "\n" : "";
          out.io.stderr.write(`${apart}Exported ${report.entities} entities and ${report.relations} relations from scope "${scope}".\n`);
          return;
        }
        out.result({ file, scope, ...report }, () => `Exported ${report.entities} entities and ${report.relations} relations from scope "${scope}" to ${file}.`);
      }),
    );
  return graph;
}

async function writeChunk(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, "drain");
}

function progressLine(stderr: NodeJS.WritableStream) {
  let last = 0;
  const show = (r: ImportReport) =>
    stderr.write(`\r  line ${r.lines}: ${r.entities.created} entities and ${r.relations.created} relations created, ${r.invalidCount} invalid lines`);
  return {
    update(r: ImportReport) {
      const now = Date.now();
      if (now - last < PROGRESS_EVERY_MS) return;
      last = now;
      show(r);
    },
    done() {
      if (last) stderr.write("\n");
    },
  };
}

function importSummary(file: string, scope: string, as: string, r: ImportReport): string {
  const lines = [
    `Imported ${file} into scope "${scope}" as ${as} (${r.lines} lines):`,
    `  entities:     ${r.entities.created} created, ${r.entities.existing} already present`,
    `  observations: ${r.observations.added} added, ${r.observations.existing} already present`,
    `  relations:    ${r.relations.created} created, ${r.relations.existing} already present`,
    `  invalid lines: ${r.invalidCount}`,
  ];
  for (const bad of r.invalid.slice(0, 20)) lines.push(`    line ${bad.line}: ${bad.error}`);
  if (r.invalidCount > 20) lines.push(`    … and ${r.invalidCount - 20} more (all listed, up to 1000, with --json)`);
  return lines.join("\n");
}
