// `agent-memory import DIR`: reads an exported tree (or a seeds-style flat
// folder) back. The team first (agents.jsonl, ledger-actions.jsonl: team.ts),
// so that authors are the agents they were. One transaction per fact file and
// one for each JSON Lines file: a bad file is reported with its reason and
// skipped, never half-imported. Each scope's graph.jsonl is merged as `graph
// import` does (invalid lines listed, the others imported). With
// dryRun every transaction is rolled back, so the report is exact and nothing
// is written.
import { stat } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Database, Queryable } from "../db/database.js";
import { classifyDatabaseError } from "../db/classify.js";
import { pgCode } from "../db/errors.js";
import { withDeadlockRetry } from "../db/retry.js";
import { DomainError, invalid } from "../errors.js";
import { type ImportFile, openImportFile } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import { AgentMap } from "./agents.js";
import { restoreSupersessions } from "../facts/index.js";
import { type FactOutcome, importFactFile } from "./import-facts.js";
import { type GraphFileResult, importGraphs } from "./graph.js";
import { appendLedgerFile, type LineProblem, validateLedgerFile } from "./import-ledger.js";
import { ACTIONS_FILE, AGENTS_FILE, LEDGER_FILE } from "./model.js";
import { parseFactFile } from "./parse.js";
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

export interface FileResult {
  file: string;
  outcome: FactOutcome | "invalid";
  scope?: string;
  name?: string;
  reason?: string;
  confirmedByImporter?: true;
}

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

/** Thrown at the end of a dry run's transaction to roll it back with its result. */
class DryRun<T> extends Error {
  constructor(readonly result: T) {
    super("dry run");
  }
}

async function inTransaction<T>(db: Database, dryRun: boolean, work: (tx: Queryable) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      const result = await work(tx);
      if (dryRun) throw new DryRun(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRun) return error.result as T;
    throw error;
  }
}

/**
 * Why a file failed, for the report. Rule violations say so themselves; a
 * constraint the database enforced is reported with its message. Connection
 * loss and timeouts end the whole import instead: they say nothing about the file.
 */
function reasonOf(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  const classified = classifyDatabaseError(error);
  if (classified) throw classified;
  if (pgCode(error)) return `the database refused it: ${(error as Error).message}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EISDIR" || code === "ENOENT") return `could not read the file: ${(error as Error).message}`;
  throw error;
}

/** A fact file's text: a regular file within IMPORT_FILES.factFile (refused with the reason otherwise). */
async function readFactFile(path: string): Promise<string> {
  const file = await openImportFile(path, IMPORT_FILES.factFile);
  try {
    return await file.text();
  } finally {
    await file.close();
  }
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

  const facts: ImportReport["facts"] = { created: 0, updated: 0, unchanged: 0, invalid: 0 };
  const results: FileResult[] = [];
  // Supersession links name other facts: set once every file is in.
  const links: Array<{ scope: string; name: string; supersedes?: string | undefined; supersededBy?: string | undefined }> = [];
  const files = await importableFiles(root);
  for (const [index, { rel, folder }] of files.entries()) {
    let result: FileResult;
    agents.reading(rel);
    try {
      const parsed = parseFactFile(await readFactFile(join(root, rel)));
      await options.secrets.check(stringsIn(parsed));
      agents.note(parsed.format === "snapshot" ? [parsed.fact.author, ...parsed.fact.history.map((e) => e.by)] : parsed.owner === undefined ? [] : [parsed.owner]);
      // A file's versions are separate statements of one transaction, which can
      // close a deadlock with an agent's store (new words, am_fact_words_inserted): the file
      // is then imported again rather than the whole import ended.
      const done = await withDeadlockRetry(() =>
        inTransaction(db, options.dryRun, async (tx) => {
          await stage(tx);
          return importFactFile(tx, parsed, { agents, bodyMaxChars: options.bodyMaxChars, importAt, file: rel, folder });
        }),
      );
      result = { file: rel, ...done };
      if (parsed.format === "snapshot" && (parsed.fact.supersedes || parsed.fact.supersededBy)) {
        links.push({ scope: done.scope, name: done.name, supersedes: parsed.fact.supersedes, supersededBy: parsed.fact.supersededBy });
      }
    } catch (error) {
      result = { file: rel, outcome: "invalid", reason: reasonOf(error) };
    }
    facts[result.outcome]++;
    results.push(result);
    options.onProgress?.(index + 1, files.length);
  }

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
