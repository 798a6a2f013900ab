// The fact files of an import, in batches. Each batch is read, parsed and
// checked (every text through the secret guard, in one scan) while the batch
// before it is written, and written in one transaction: its new facts together, each row
// once as its history leaves it (insertFactHistories), then the others (facts
// the database has already, seed files, files with redactions) one at a time,
// each in a savepoint, so that a file that fails leaves nothing behind and the
// others still import. A transaction per file spent more on its commit than on
// the file (~5 of ~6 ms on two cores); a promoted fact replayed event by event
// wrote its row, and every index of it, twice.
//
// A batch whose transaction fails other than by one file's rule is imported
// again file by file, each in a transaction of its own, as every file was before:
// each file then gets its own outcome and reason, exactly.
import { join } from "node:path";
import type { Database, Queryable } from "../db/core/database.js";
import { classifyDatabaseError } from "../db/core/classify.js";
import { pgCode } from "../db/core/errors.js";
import { withDeadlockRetry } from "../db/core/retry.js";
import { DomainError } from "../errors.js";
import { insertFactHistories } from "../facts/index.js";
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import type { AgentMap } from "./agents.js";
import { inTransaction, readFactFile, reasonOf } from "./import-steps.js";
import { type FactOutcome, importFactFile, planSnapshotFact, type PlannedFact } from "./import-facts.js";
import { type ParsedFile, parseFactFile } from "./parse.js";
import type { TargetContext } from "./targets.js";

/** Files per batch, and the most fact text one batch holds (bodies may be long: FACT_BODY_MAX_CHARS). */
const BATCH_FILES = 500;
const BATCH_CHARS = 4_000_000;


export interface FileResult {
  file: string;
  outcome: FactOutcome | "invalid";
  scope?: string;
  name?: string;
  reason?: string;
  confirmedByImporter?: true;
}

/** A supersession link a file names: set once every file is in. */
export interface SupersessionLink {
  scope: string;
  name: string;
  supersedes?: string | undefined;
  supersededBy?: string | undefined;
}

interface ReadFile {
  index: number;
  rel: string;
  folder: string | null;
  parsed: ParsedFile;
  /** The import's agents, resolving names for this file (for missingAgents). */
  agents: AgentMap;
}

export interface FactFilesOptions {
  dryRun: boolean;
  bodyMaxChars: number;
  secrets: SecretGuard;
  /** The import's own time (seed files' changes). */
  importAt: string;
  /** Run first in every transaction (a dry run creates the agents it would create again in each). */
  stage: (tx: Queryable) => Promise<void>;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** Every fact file of the import, in order: one result each, and the supersession links they name. */
export async function importFactFiles(
  db: Database,
  root: string,
  files: ReadonlyArray<{ rel: string; folder: string | null }>,
  agents: AgentMap,
  options: FactFilesOptions,
): Promise<{ results: FileResult[]; links: SupersessionLink[] }> {
  const results: FileResult[] = new Array<FileResult>(files.length);
  const links: SupersessionLink[] = [];
  const contextOf = (f: ReadFile): TargetContext => ({ agents: f.agents, bodyMaxChars: options.bodyMaxChars, importAt: options.importAt, file: f.rel, folder: f.folder });
  let progress = 0;
  const write = async (batch: ReadFile[], read: number) => {
    const done = await writeBatch(db, batch, contextOf, options);
    batch.forEach((f, i) => {
      const result = done[i]!;
      results[f.index] = result;
      if (result.scope !== undefined && f.parsed.format === "snapshot" && (f.parsed.fact.supersedes || f.parsed.fact.supersededBy)) {
        links.push({ scope: result.scope, name: result.name!, supersedes: f.parsed.fact.supersedes, supersededBy: f.parsed.fact.supersededBy });
      }
    });
    progress = Math.max(progress, read);
    options.onProgress?.(progress, files.length);
  };
  // A batch is written while the next is read and checked, one batch at a time
  // and in file order (two at once bought ~15 % on Postgres, but then which of
  // two files naming one fact wins could depend on timing); a failed write ends
  // the import where it is awaited.
  const writing: Array<Promise<void>> = [];
  let batch: ReadFile[] = [];
  let chars = 0;
  const cut = async (read: number) => {
    const next = batch;
    batch = [];
    chars = 0;
    // Every text of the batch in one scan of the guard, each file refused on its own.
    const refusals = await options.secrets.checkEach(next.map((f) => stringsIn(f.parsed)));
    const admitted = next.filter((f, i) => {
      const refusal = refusals[i];
      if (refusal) results[f.index] = { file: f.rel, outcome: "invalid", reason: refusal.message };
      else f.agents.note(f.parsed.format === "snapshot" ? [f.parsed.fact.author, ...f.parsed.fact.history.map((e) => e.by)] : f.parsed.owner === undefined ? [] : [f.parsed.owner]);
      return !refusal;
    });
    if (writing.length > 0) await writing.shift();
    const written = write(admitted, read);
    written.catch(() => undefined);
    writing.push(written);
  };
  for (const [index, { rel, folder }] of files.entries()) {
    try {
      const text = await readFactFile(join(root, rel));
      batch.push({ index, rel, folder, parsed: parseFactFile(text), agents: agents.forFile(rel) });
      chars += text.length;
    } catch (error) {
      results[index] = { file: rel, outcome: "invalid", reason: reasonOf(error) };
    }
    if (batch.length >= BATCH_FILES || chars >= BATCH_CHARS) await cut(index + 1);
  }
  await cut(files.length);
  for (const written of writing) await written;
  return { results, links };
}

async function writeBatch(db: Database, batch: ReadFile[], contextOf: (f: ReadFile) => TargetContext, options: FactFilesOptions): Promise<FileResult[]> {
  if (batch.length === 0) return [];
  try {
    return await withDeadlockRetry(() =>
      inTransaction(db, options.dryRun, async (tx) => {
        await options.stage(tx);
        return writeTogether(tx, batch, contextOf);
      }),
    );
  } catch {
    const alone: FileResult[] = [];
    for (const f of batch) alone.push(await writeAlone(db, f, contextOf(f), options));
    return alone;
  }
}

/** A batch in the caller's transaction: new facts in one statement, the rest file by file in savepoints. */
async function writeTogether(tx: Queryable, batch: ReadFile[], contextOf: (f: ReadFile) => TargetContext): Promise<FileResult[]> {
  const results: Array<FileResult | undefined> = new Array<FileResult | undefined>(batch.length);
  const planned: Array<{ at: number; plan: PlannedFact }> = [];
  batch.forEach((f, at) => {
    // Redactions are restored on a fact that exists: such a file takes the way of one.
    if (f.parsed.format !== "snapshot" || f.parsed.fact.redactions.length > 0) return;
    try {
      planned.push({ at, plan: planSnapshotFact(f.parsed, contextOf(f)) });
    } catch (error) {
      results[at] = { file: f.rel, outcome: "invalid", reason: reasonOf(error) };
    }
  });
  const created = await insertFactHistories(
    tx,
    planned.map(({ plan }) => ({ ...plan.identity, contents: plan.target.contents, events: plan.target.events })),
  );
  for (const [k, { at, plan }] of planned.entries()) {
    if (created.has(k)) results[at] = { file: batch[at]!.rel, ...plan.identity, outcome: "created" };
  }
  for (const [at, f] of batch.entries()) {
    if (results[at] === undefined) results[at] = await inSavepoint(tx, f, contextOf(f));
  }
  return results as FileResult[];
}

/**
 * One file inside the batch's transaction. A file's own problem (a rule, a
 * constraint that names no outage) rolls back to the savepoint and makes it
 * invalid; anything else (a deadlock, a lost connection) fails the batch.
 */
async function inSavepoint(tx: Queryable, f: ReadFile, ctx: TargetContext): Promise<FileResult> {
  await tx.query("savepoint import_file");
  try {
    const done = await importFactFile(tx, f.parsed, ctx);
    await tx.query("release savepoint import_file");
    return { file: f.rel, ...done };
  } catch (error) {
    if (!(error instanceof DomainError) && (pgCode(error) === undefined || classifyDatabaseError(error) !== undefined)) throw error;
    await tx.query("rollback to savepoint import_file");
    return { file: f.rel, outcome: "invalid", reason: reasonOf(error) };
  }
}

/**
 * One file in a transaction of its own. Its versions are separate statements,
 * which can close a deadlock with an agent's store (new words,
 * am_fact_words_add): the file is then imported again rather than the whole
 * import ended.
 */
async function writeAlone(db: Database, f: ReadFile, ctx: TargetContext, options: FactFilesOptions): Promise<FileResult> {
  try {
    const done = await withDeadlockRetry(() =>
      inTransaction(db, options.dryRun, async (tx) => {
        await options.stage(tx);
        return importFactFile(tx, f.parsed, ctx);
      }),
    );
    return { file: f.rel, ...done };
  } catch (error) {
    return { file: f.rel, outcome: "invalid", reason: reasonOf(error) };
  }
}
