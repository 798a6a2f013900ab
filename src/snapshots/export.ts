// `agent-memory export DIR`: the current facts as Markdown files, the ledger
// as JSON Lines, each scope's knowledge graph as JSON Lines, and the team
// (agents without tokens, the ledger's action mappings: team.ts), from one
// consistent snapshot of the database. Deterministic:
// the same database state gives the same bytes, so a nightly export committed
// to git shows exactly what changed.
import { join } from "node:path";
import { validateScope } from "../auth/scopes.js";
import type { Database, Queryable } from "../db/core/database.js";
import { invalid } from "../errors.js";
import { countFactsForExport, type ExportFilters, exportReceipts, FACT_STATUSES, type FactStatus } from "../facts/index.js";
import { eventJson, exportLedger } from "../ledger/index.js";
import { renderFactFile } from "./markdown.js";
import { exportTeam } from "./team.js";
import { exportGraphs, type GraphExport } from "./graph.js";
import { factPath, GRAPH_FILE, LEDGER_FILE, RECEIPTS_FILE } from "./model.js";
import { factsForExport } from "./read.js";
import { exportedFiles, removeExported, resolveTarget, validateInsideTarget, writeAtomically, writeIfChanged } from "./tree.js";

interface ExportOptions {
  dir: string;
  /** Only these scopes (all when empty). */
  scopes: string[];
  /** Only these statuses (all when empty). */
  statuses: string[];
  onProgress?: (done: number, total: number) => void;
  /** Also write the recall receipts (who was served which fact version) as receipts.jsonl: left out unless asked for. */
  receipts?: boolean;
}

export interface ExportReport {
  dir: string;
  facts: { exported: number; written: number; unchanged: number; removed: number };
  /** Files of facts that no longer exist or no longer match the filters. */
  removedFiles: string[];
  ledger: { file: string; rows: number; lastSeq: number; lastHash: string };
  /** Each scope's knowledge graph, `<scope>/graph.jsonl`. */
  graphs: GraphExport[];
  /** agents.jsonl and ledger-actions.jsonl: how many lines each. */
  team: { agents: number; ledgerActions: number };
  /** receipts.jsonl, with --receipts. */
  receipts?: { file: string; rows: number };
}

// Lines are gathered into chunks of about this size before each write.
const LEDGER_CHUNK_CHARS = 64 * 1024;

function exportFilters(scopes: string[], statuses: string[]): ExportFilters {
  for (const s of statuses) {
    if (!(FACT_STATUSES as readonly string[]).includes(s)) throw invalid(`--status "${s}" is not valid: use draft, confirmed or deprecated.`);
  }
  scopes.forEach(validateScope);
  return {
    scopes: scopes.length > 0 ? [...new Set(scopes)] : null,
    statuses: statuses.length > 0 ? ([...new Set(statuses)] as FactStatus[]) : null,
  };
}

export async function exportSnapshot(db: Database, options: ExportOptions): Promise<ExportReport> {
  const filters = exportFilters(options.scopes, options.statuses);
  const root = await resolveTarget(options.dir);
  return db.transaction(async (tx) => {
    // One snapshot for facts, ledger and graphs: a fact changed mid-export can
    // never appear half old, half new, and the ledger and graphs match the
    // facts' moment.
    await tx.query("set transaction isolation level repeatable read, read only");
    const total = await countFactsForExport(tx, filters);
    const expected = new Set<string>();
    let written = 0;
    for await (const fact of factsForExport(tx, filters)) {
      const rel = factPath(fact.scope, fact.type, fact.name);
      expected.add(rel);
      await validateInsideTarget(root, join(root, rel));
      if (await writeIfChanged(join(root, rel), renderFactFile(fact))) written++;
      options.onProgress?.(expected.size, total);
    }
    const factCount = expected.size;

    const ledgerPath = join(root, LEDGER_FILE);
    await validateInsideTarget(root, ledgerPath);
    let summary = { rows: 0, lastSeq: 0, lastHash: "" };
    await writeAtomically(ledgerPath, async (write) => {
      let chunk = "";
      summary = await exportLedger(tx, async (event) => {
        chunk += `${JSON.stringify(eventJson(event))}\n`;
        if (chunk.length >= LEDGER_CHUNK_CHARS) {
          await write(chunk);
          chunk = "";
        }
      });
      await write(chunk);
    });

    const graphs = await exportGraphs(tx, root, filters.scopes);
    for (const g of graphs) expected.add(g.file);
    const team = await exportTeam(tx, root);
    const receipts = options.receipts ? await writeReceipts(tx, root, filters.scopes) : undefined;

    const removedFiles = (await exportedFiles(root)).filter((rel) => !expected.has(rel));
    for (const rel of removedFiles) await removeExported(root, rel);
    return {
      dir: root,
      facts: { exported: factCount, written, unchanged: factCount - written, removed: removedFiles.filter((rel) => !rel.endsWith(`/${GRAPH_FILE}`)).length },
      removedFiles,
      ledger: { file: ledgerPath, ...summary },
      graphs,
      team: { agents: team.agents, ledgerActions: team.actions },
      ...(receipts ? { receipts } : {}),
    };
  });
}

async function writeReceipts(tx: Queryable, root: string, scopes: string[] | null): Promise<{ file: string; rows: number }> {
  const file = join(root, RECEIPTS_FILE);
  await validateInsideTarget(root, file);
  let rows = 0;
  await writeAtomically(file, async (write) => {
    let chunk = "";
    rows = await exportReceipts(tx, scopes, async (receipt) => {
      chunk += `${JSON.stringify(receipt)}\n`;
      if (chunk.length >= LEDGER_CHUNK_CHARS) {
        await write(chunk);
        chunk = "";
      }
    });
    await write(chunk);
  });
  return { file, rows };
}
