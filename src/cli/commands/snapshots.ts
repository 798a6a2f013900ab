// export DIR | import DIR: memory as a Markdown tree that git can review.
import { createSecretGuard } from "../../secrets/guard.js";
import type { Command } from "commander";
import { AGENT_NAME_PATTERN } from "../../auth/scopes.js";
import { loadConfig } from "../../config/index.js";
import { addAgentCommand, type ExportReport, exportSnapshot, type ImportReport, importSnapshot } from "../../snapshots/index.js";
import { withDatabase } from "../context.js";
import { ExitCode, type Output } from "../output.js";
import { progress } from "../progress.js";
import { action, parseList } from "../run.js";

/** Repeatable, comma-separated option values: --scope a --scope b,c. */
const collect = (value: string, previous: string[]): string[] => [...previous, ...parseList(value)];

export function registerSnapshotCommands(program: Command): void {
  program
    .command("export")
    .description(
      "write every current fact as DIR/<scope>/<type>_<name>.md, the ledger as DIR/ledger.jsonl, each scope's graph as DIR/<scope>/graph.jsonl, " +
        "the agents (never tokens) as DIR/agents.jsonl and the ledger's action mappings as DIR/ledger-actions.jsonl (deterministic: commit it to git)",
    )
    .argument("<dir>", "the folder to write (created if missing; files of facts and graphs that are gone are removed, nothing else is touched)")
    .option("--scope <scopes>", "only these scopes (repeatable or comma-separated)", collect, [])
    .option("--status <statuses>", "only facts with these statuses: draft, confirmed, deprecated (repeatable or comma-separated)", collect, [])
    .option("--receipts", "also write the recall receipts (which agent was served which fact version, when) as DIR/receipts.jsonl")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, dir: string, opts: { scope: string[]; status: string[]; receipts?: boolean }) => {
        const bar = progress(out.io.stderr, "exporting facts", { quietUnlessTerminal: true });
        let report: ExportReport;
        try {
          report = await withDatabase(out.io, (db) => exportSnapshot(db, { dir, scopes: opts.scope, statuses: opts.status, onProgress: bar?.update, receipts: opts.receipts === true }));
        } finally {
          bar?.end();
        }
        out.result(report, () => exportText(report));
      }),
    );

  program
    .command("import")
    .description("read agents, facts, the ledger and its action mappings, and each scope's graph back from an exported folder, or from a folder of *.md files in the file-based memory format")
    .argument("<dir>", "the folder to read")
    .option("--dry-run", "check everything and report what would happen, write nothing")
    .option("--as <agent>", "the agent that stands in for authors and actors that are not agents here (and confirms seed facts marked confirmed; without it they are recorded as confirmed before import, by the reserved agent \"importer\")")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, dir: string, opts: { dryRun?: boolean; as?: string }) => {
        const config = loadConfig(out.io.env);
        const { factBodyMaxChars: bodyMaxChars, graphTextMaxChars } = config.limits;
        const secrets = createSecretGuard(config.secretGuard);
        const bar = progress(out.io.stderr, opts.dryRun ? "checking files" : "importing files", { quietUnlessTerminal: true });
        let report: ImportReport;
        try {
          report = await withDatabase(out.io, (db) => importSnapshot(db, { dir, dryRun: Boolean(opts.dryRun), as: opts.as, bodyMaxChars, graphTextMaxChars, secrets, onProgress: bar?.update }));
        } finally {
          bar?.end();
        }
        out.result(report, () => importText(report));
        // Skipped invalid files are a failure for scripts.
        const failed =
          report.facts.invalid > 0 ||
          report.ledger.invalid.length > 0 ||
          report.graphs.some((g) => g.report.invalidCount > 0) ||
          report.team.agents.invalid.length > 0 ||
          report.team.ledgerActions.invalid.length > 0;
        if (failed) out.fail(ExitCode.FAILURE);
      }),
    );
}

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function exportText(r: ExportReport): string {
  const lines = [
    `Exported ${r.facts.exported} fact(s) to ${r.dir} (${r.facts.written} written, ${r.facts.unchanged} unchanged, ${r.facts.removed} removed) ` +
      `and ${r.ledger.rows} ledger event(s) to ${r.ledger.file}.`,
    ...r.graphs.map((g) => `  graph    ${g.file}: ${count(g.entities, "entity", "entities")}, ${count(g.relations, "relation", "relations")}`),
    `  team     agents.jsonl: ${count(r.team.agents, "agent", "agents")} (never tokens); ledger-actions.jsonl: ${count(r.team.ledgerActions, "action mapping", "action mappings")}`,
    ...(r.receipts ? [`  receipts ${r.receipts.file}: ${count(r.receipts.rows, "receipt", "receipts")}`] : []),
    ...r.removedFiles.map((f) => `  removed  ${f}`),
  ];
  return lines.join("\n");
}

/** Every agent to create before importing again, in one place (the file lines name them one file at a time). */
function missingAgentsText(missing: ImportReport["missingAgents"]): string[] {
  if (missing.length === 0) return [];
  const names = missing.map((m) => `${m.name} (${m.files} file${m.files === 1 ? "" : "s"})`).join(", ");
  const creatable = missing.filter((m) => AGENT_NAME_PATTERN.test(m.name));
  const other = missing.filter((m) => !AGENT_NAME_PATTERN.test(m.name));
  return [
    `Not agents here: ${names}. Create them with the kind and scopes they have where the files come from (add --kind human --scopes … for a person) and import again, ` +
      "or pass --as <agent> to import their work under one agent:",
    ...creatable.map((m) => `  ${addAgentCommand(m.name)}`),
    ...(other.length > 0
      ? [`  ${other.map((m) => JSON.stringify(m.name)).join(", ")} cannot be an agent's name (lower-case letters, digits, ".", "_", "-"): rename it in the files, or use --as.`]
      : []),
  ];
}

function importText(r: ImportReport): string {
  const f = r.facts;
  const l = r.ledger;
  const head = r.dryRun ? `Dry run of the import from ${r.dir}; nothing was written.` : `Imported ${r.dir}.`;
  const ledger = l.file === null ? "no ledger.jsonl" : `${l.appended} appended, ${l.unchanged} unchanged, ${l.invalid.length} invalid`;
  const { agents, ledgerActions } = r.team;
  const lines = [
    head,
    ...(agents.file === null
      ? []
      : [
          `agents: ${agents.created.length} created, ${agents.existing} there already, ${agents.invalid.length} invalid`,
          ...agents.invalid.map((p) => `  invalid   ${agents.file} line ${p.line}: ${p.reason}`),
          ...(agents.invalid.length > 0 ? [`  ${agents.file} was not imported: fix the lines above (it is imported whole or not at all).`] : []),
          ...(agents.created.length > 0 && !r.dryRun
            ? [`  An export carries no tokens: issue each new agent one and hand it over (agent-memory token issue NAME): ${agents.created.join(", ")}.`]
            : []),
        ]),
    ...(ledgerActions.file === null
      ? []
      : [
          `ledger actions: ${ledgerActions.restored} mapped, ${ledgerActions.unchanged} there already, ${ledgerActions.invalid.length} invalid`,
          ...ledgerActions.invalid.map((p) => `  invalid   ${ledgerActions.file} line ${p.line}: ${p.reason}`),
          ...(ledgerActions.invalid.length > 0 ? [`  ${ledgerActions.file} was not imported: fix the lines above (it is imported whole or not at all).`] : []),
        ]),
    `facts:  ${f.created} created, ${f.updated} updated, ${f.unchanged} unchanged, ${f.invalid} invalid`,
    ...(r.confirmedByImporter > 0
      ? [`        ${r.confirmedByImporter} confirmation(s) made before the import recorded under the reserved agent "importer" (the files name no confirmer who is an agent here)`]
      : []),
    `ledger: ${ledger}`,
    ...r.files.filter((x) => x.outcome !== "unchanged").map((x) => `  ${x.outcome.padEnd(9)} ${x.file}${x.reason ? `: ${x.reason}` : ""}`),
    ...l.invalid.map((p) => `  invalid   ${l.file} line ${p.line}: ${p.reason}`),
    ...(l.invalid.length > 0 ? [`  ${l.file} was not imported: fix the lines above (a ledger is imported whole or not at all).`] : []),
    ...r.graphs.flatMap((g) => [
      r.dryRun
        ? `graph:  ${g.file}: ${g.report.lines} line(s) read, ${g.report.invalidCount} invalid`
        : `graph:  ${g.file}: ${count(g.report.entities.created, "entity", "entities")} created (${g.report.entities.existing} there already), ` +
          `${count(g.report.observations.added, "observation", "observations")} added, ${count(g.report.relations.created, "relation", "relations")} created (${g.report.relations.existing} there already), ` +
          `${g.report.invalidCount} invalid line(s)`,
      ...g.report.invalid.map((p) => `  invalid   ${g.file} line ${p.line}: ${p.error}`),
    ]),
    ...r.warnings.map((w) => `  warning   ${w}`),
    ...missingAgentsText(r.missingAgents),
  ];
  if (r.recorded) lines.push(`Recorded as import #${r.recorded.id} at ${r.recorded.at}${r.as ? ` (--as ${r.as})` : ""}.`);
  return lines.join("\n");
}
