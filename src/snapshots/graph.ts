// The knowledge graph in an exported tree: each scope's graph as
// `<scope>/graph.jsonl` (the reference server's memory.jsonl format: entities,
// then relations, each in the order they were created), so that one export is
// a whole backup and one import restores it. Each line also carries who wrote
// it and when (createdBy, createdAt, observationsMeta; src/graph/jsonl.ts).
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ensureImporterAgent } from "../auth/store.js";
import type { Database, Queryable } from "../db/core/database.js";
import { exportGraphIn, type GraphImportReport, graphScopes, importGraph } from "../graph/index.js";
import { openImportFile } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import type { SecretGuard } from "../secrets/guard.js";
import { graphPath } from "./model.js";
import { graphFiles, validateInsideTarget, writeAtomically } from "./tree.js";

export interface GraphExport {
  scope: string;
  file: string;
  entities: number;
  relations: number;
}

/** Writes every scope's graph (or those of `scopes`) inside the export's transaction; answers what it wrote. */
export async function exportGraphs(tx: Queryable, root: string, scopes: string[] | null): Promise<GraphExport[]> {
  const written: GraphExport[] = [];
  for (const scope of await graphScopes(tx)) {
    if (scopes !== null && !scopes.includes(scope)) continue;
    const file = graphPath(scope);
    await validateInsideTarget(root, join(root, file));
    // A scope may hold a graph and no fact: then no fact file made its folder.
    await mkdir(dirname(join(root, file)), { recursive: true });
    let report = { entities: 0, relations: 0 };
    await writeAtomically(join(root, file), async (write) => {
      // One line per entity or relation, each ended by a line break (a file git diffs line by line).
      report = await exportGraphIn(tx, scope, (chunk) => write(chunk), { provenance: true });
      if (report.entities + report.relations > 0) await write("\n");
    });
    written.push({ scope, file, ...report });
  }
  return written;
}

export interface GraphFileResult {
  file: string;
  scope: string;
  /** What was imported (a dry run: what is valid, nothing written). */
  report: GraphImportReport;
}

/**
 * Imports each `<scope>/graph.jsonl` of the tree into its scope. A line of a
 * whole export says who wrote it and when: recorded so when that is an agent
 * here (`authorOf`); otherwise (and for lines in the reference's format, which
 * names no authors) as created by `as` (the --as agent) or, without one, by
 * the import identity, now. Merges as `graph import` does: what is
 * there already is skipped. A dry run reads and checks every line and writes
 * nothing.
 */
export async function importGraphs(
  db: Database,
  root: string,
  options: { dryRun: boolean; as: { id: number } | null; maxChars: number; secrets: SecretGuard; authorOf: (name: string) => number | undefined },
): Promise<GraphFileResult[]> {
  const results: GraphFileResult[] = [];
  const files = await graphFiles(root);
  if (files.length === 0) return results;
  const agentId = options.as?.id ?? (options.dryRun ? 0 : (await ensureImporterAgent(db)).id);
  for (const { rel, scope } of files) {
    const input = await openImportFile(join(root, rel), IMPORT_FILES.graph);
    try {
      const writer = { scope, agentId, maxChars: options.maxChars };
      const report = await importGraph(options.dryRun ? null : db, writer, input.lines(), { secrets: options.secrets, authorOf: options.authorOf });
      results.push({ file: rel, scope, report });
    } finally {
      await input.close();
    }
  }
  return results;
}


