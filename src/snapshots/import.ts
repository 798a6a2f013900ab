// `agent-memory import DIR`: reads an exported tree (or a seeds-style flat
// folder) back. The team first (agents.jsonl, ledger-actions.jsonl: team.ts),
// so that authors are the agents they were. Fact files go in batches, each
// file whole or not at all (import-batches.ts), each JSON Lines file in one
// transaction: a bad file is reported with its reason and skipped, never
// half-imported. Each scope's graph.jsonl is merged as `graph
// import` does (invalid lines listed, the others imported). With
// dryRun every transaction is rolled back, so the report is exact and nothing
// is written.
import { stat } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Database, Queryable } from "../db/core/database.js";
import { invalid } from "../errors.js";
import { type ImportFile, openImportFile } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import type { SecretGuard } from "../secrets/guard.js";
import { AgentMap } from "./agents.js";
import { restoreSupersessions } from "../facts/index.js";
import type { FactOutcome } from "./import-facts.js";
import { type FileResult, importFactFiles } from "./import-batches.js";
import { inTransaction } from "./import-steps.js";
import { type GraphFileResult, importGraphs } from "./graph.js";
import { appendLedgerFile, type LineProblem, validateLedgerFile } from "./import-ledger.js";
import { ACTIONS_FILE, AGENTS_FILE, LEDGER_FILE } from "./model.js";
import * as sql from "./sql.js";
import { type AgentLine, importActions, importAgents, readActionLines, readAgentLines } from "./team.js";
import { importableFiles } from "./tree.js";

export interface ImportOptions {
  dir: string;
  dryRun: boolean;
  as?: string | undefined;
  bodyMaxChars: number;
  /** GRAPH_TEXT_MAX_CHARS: the longest entity name, type or observation a graph file may hold. */
  graphTextMaxChars: number;
  /** Every text of every file is scanned before it is written (SECRET_GUARD). */
  secrets: SecretGuard;
  onProgress?: (done: number, total: number) => void;
}

export type { FileResult };

export interface ImportReport {
  dir: string;
  dryRun: boolean;
  as: string | null;
  facts: Record<FactOutcome | "invalid", number>;
  /** Confirmations this import recorded under the reserved importer identity (confirmed before the import, by nobody who is an agent here). */
  confirmedByImporter: number;
  files: FileResult[];
  ledger: { file: string | null; appended: number; unchanged: number; invalid: LineProblem[] };
  /** Each `<scope>/graph.jsonl` of the tree, merged into its scope. */
  graphs: GraphFileResult[];
  /**
   * agents.jsonl: the agents created (without tokens: issue them) and those
   * here already; ledger-actions.jsonl: the mappings restored and those kept.
   * A file with an invalid line is not imported (file null: not in the tree).
   */
  team: {
    agents: { file: string | null; created: string[]; existing: number; invalid: LineProblem[] };
    ledgerActions: { file: string | null; restored: number; unchanged: number; invalid: LineProblem[] };
  };
  warnings: string[];
  /** Owners, authors, history entries' and ledger lines' names that are not agents here (none with --as), with how many files name each. */
  missingAgents: Array<{ name: string; files: number }>;
  /** The row in snapshot_imports; null for a dry run. */
  recorded: { id: number; at: string } | null;
}

export async function importSnapshot(db: Database, options: ImportOptions): Promise<ImportReport> {
  const root = resolve(options.dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw invalid(`${root} is not a folder: give the folder an export wrote, or a folder of *.md memory files.`);
  // Checked before anything is imported: a ledger.jsonl that is a link, a device
  // or too large refuses the whole import, with its path and the limit.
  const ledgerFile = await openImportFile(join(root, LEDGER_FILE), IMPORT_FILES.ledger, { optional: true });
  try {
    return await importTree(db, options, root, ledgerFile);
  } finally {
    await ledgerFile?.close();
  }
}

async function importTree(db: Database, options: ImportOptions, root: string, ledgerFile: ImportFile | undefined): Promise<ImportReport> {
  const warnings: string[] = [];
  const agentLines = await readAgentLines(root);
  const team: ImportReport["team"] = {
    agents: { file: agentLines.found ? AGENTS_FILE : null, created: [], existing: 0, invalid: agentLines.invalid },
    ledgerActions: { file: null, restored: 0, unchanged: 0, invalid: [] },
  };
  // The agents a dry run would create: created again in each of its rolled-back
  // transactions, so that the files naming them check as in a real run.
  let pending: AgentLine[] = [];
  if (agentLines.invalid.length === 0 && agentLines.lines.length > 0) {
    const done = await inTransaction(db, options.dryRun, (tx) => importAgents(tx, agentLines.lines));
    team.agents.created = done.created.map((a) => a.name);
    team.agents.existing = done.existing;
    warnings.push(...done.warnings);
    if (options.dryRun) pending = agentLines.lines.filter((l) => team.agents.created.includes(l.name));
  }
  const agents = await AgentMap.load(db, options.as);
  for (const p of pending) agents.bind(p.name, -1);
  const stage = async (tx: Queryable) => {
    if (pending.length === 0) return;
    for (const a of (await importAgents(tx, pending)).created) agents.bind(a.name, a.id);
  };
  const importAt = (await db.query<{ now: string }>(sql.NOW_MS)).rows[0]!.now;

  const { results, links } = await importFactFiles(db, root, await importableFiles(root), agents, {
    dryRun: options.dryRun,
    bodyMaxChars: options.bodyMaxChars,
    secrets: options.secrets,
    importAt,
    stage,
    onProgress: options.onProgress,
  });
  const facts: ImportReport["facts"] = { created: 0, updated: 0, unchanged: 0, invalid: 0 };
  for (const r of results) facts[r.outcome]++;

  if (!options.dryRun && links.length > 0) {
    const imported = new Set(results.flatMap((r) => ("scope" in r ? [`${r.scope}/${r.name}`] : [])));
    await restoreSupersessions(db, links, imported);
  }

  const actionLines = await readActionLines(root);
  if (actionLines.found) {
    team.ledgerActions.file = ACTIONS_FILE;
    team.ledgerActions.invalid = actionLines.invalid;
    if (actionLines.invalid.length === 0) {
      const done = await inTransaction(db, options.dryRun, (tx) => importActions(tx, actionLines.lines));
      team.ledgerActions.restored = done.restored;
      team.ledgerActions.unchanged = done.unchanged;
      warnings.push(...done.warnings);
    }
  }

  const ledger: ImportReport["ledger"] = { file: null, appended: 0, unchanged: 0, invalid: [] };
  if (ledgerFile) {
    ledger.file = LEDGER_FILE;
    agents.reading(LEDGER_FILE);
    const checked = await validateLedgerFile(ledgerFile, agents, options.secrets);
    ledger.invalid = checked.invalid;
    warnings.push(...checked.warnings);
    if (checked.invalid.length === 0) {
      const done = await inTransaction(db, options.dryRun, async (tx) => {
        await stage(tx);
        return appendLedgerFile(tx, ledgerFile, agents);
      });
      ledger.appended = done.appended;
      ledger.unchanged = done.unchanged;
      warnings.push(...done.warnings);
    }
  }

  const graphs = await importGraphs(db, root, {
    dryRun: options.dryRun,
    as: agents.as,
    maxChars: options.graphTextMaxChars,
    secrets: options.secrets,
    authorOf: (name) => agents.known(name)?.id,
  });

  let recorded: ImportReport["recorded"] = null;
  if (!options.dryRun) {
    const row = (
      await db.query<{ id: number; at: string }>(sql.RECORD_IMPORT, [
        agents.as?.id ?? null,
        osUser(),
        root,
        facts.created,
        facts.updated,
        facts.unchanged,
        facts.invalid,
        ledger.appended,
        ledger.unchanged,
        ledger.invalid.length,
      ])
    ).rows[0]!;
    recorded = { id: Number(row.id), at: row.at };
  }
  const confirmedByImporter = results.filter((r) => r.confirmedByImporter).length;
  return {
    dir: root,
    dryRun: options.dryRun,
    as: agents.as?.name ?? null,
    facts,
    confirmedByImporter,
    files: results,
    ledger,
    graphs,
    team,
    warnings,
    missingAgents: agents.missingAgents(),
    recorded,
  };
}

function osUser(): string {
  try {
    return userInfo().username || "unknown";
  } catch {
    return "unknown";
  }
}
