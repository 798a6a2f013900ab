// Bulk import and export in the reference's JSONL format, streamed in batches so
// a graph of any size moves with bounded memory. Import merges: a new name is
// created, an existing one keeps its type and gains the observations it lacks,
// so importing the same file twice changes nothing the second time.
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import type { Database, Queryable } from "../db/database.js";
import { type ImportLine, lineTooLongText } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import * as sql from "./sql.js";
import { entityLine, parseGraphLine, relationLine } from "./jsonl.js";
import type { EntityInput, GraphWriter, RelationInput } from "./types.js";
import { withinEntityBounds } from "./entity-bounds.js";

const ENTITY_BATCH = 500;
const TEXT_BATCH = 5000;
const RELATION_BATCH = 1000;
const EXPORT_PAGE = 1000;

export interface ImportReport {
  lines: number;
  entities: { created: number; existing: number };
  observations: { added: number; existing: number };
  relations: { created: number; existing: number };
  invalid: Array<{ line: number; error: string }>;
  invalidCount: number;
}

/** At most this many invalid lines are listed (all are counted). */
export const MAX_INVALID_LISTED = 1000;

async function importEntities(db: Database, writer: GraphWriter, batch: EntityInput[], report: ImportReport): Promise<void> {
  // In-file duplicates merge into the first occurrence, as a later import would.
  const merged = new Map<string, EntityInput>();
  for (const e of batch) {
    const seen = merged.get(e.name);
    if (seen) seen.observations.push(...e.observations);
    else merged.set(e.name, { ...e, observations: [...e.observations] });
  }
  const entities = [...merged.values()];
  const names = entities.map((e) => e.name);
  const texts = entities.reduce((n, e) => n + e.observations.length, 0);
  const { created, added } = await withinEntityBounds(() =>
    db.transaction(async (tx: Queryable) => {
      const inserted = await tx.query(sql.INSERT_ENTITIES, [writer.scope, names, entities.map((e) => e.entityType), writer.agentId]);
      const locked = await tx.query<{ id: number; name: string }>(sql.KEY_SHARE_ENTITIES_BY_NAME, [writer.scope, names]);
      const idOf = new Map(locked.rows.map((r) => [r.name, r.id]));
      const ids: number[] = [];
      const contents: string[] = [];
      for (const e of entities) {
        const id = idOf.get(e.name);
        // Deleted by someone else between the two statements: nothing to attach to.
        if (id === undefined) continue;
        for (const c of e.observations) {
          ids.push(id);
          contents.push(c);
        }
      }
      const obs = ids.length ? await tx.query(sql.INSERT_OBSERVATIONS, [ids, contents, writer.agentId, writer.scope]) : { rowCount: 0 };
      return { created: inserted.rowCount, added: obs.rowCount };
    }),
  );
  report.entities.created += created;
  report.entities.existing += batch.length - created;
  report.observations.added += added;
  report.observations.existing += texts - added;
}

async function importRelations(db: Database, writer: GraphWriter, batch: RelationInput[], report: ImportReport): Promise<void> {
  const r = await withinEntityBounds(() =>
    db.query(sql.CREATE_RELATIONS, [writer.scope, batch.map((x) => x.from), batch.map((x) => x.to), batch.map((x) => x.relationType), writer.agentId]),
  );
  report.relations.created += r.rowCount;
  report.relations.existing += batch.length - r.rowCount;
}

/** An entity too large for one line goes in as several: lines with the same name merge. */
const LINE_TOO_LONG = `${lineTooLongText(IMPORT_FILES.graph)}; split the entity's observations over several lines with the same name (they merge).`;

/**
 * Imports the lines of a file (src/import-file.ts: each at most
 * IMPORT_FILES.graph.maxLineBytes; a longer one is listed as invalid, never
 * read); `onProgress` is called after each batch. Without a database (a
 * snapshot import's dry run) every line is read and checked, nothing written.
 */
export async function importGraph(
  db: Database | null,
  writer: GraphWriter,
  lines: AsyncIterable<ImportLine>,
  options: { secrets: SecretGuard; onProgress?: ((report: ImportReport) => void) | undefined },
): Promise<ImportReport> {
  const { secrets, onProgress } = options;
  const report: ImportReport = {
    lines: 0,
    entities: { created: 0, existing: 0 },
    observations: { added: 0, existing: 0 },
    relations: { created: 0, existing: 0 },
    invalid: [],
    invalidCount: 0,
  };
  let entities: EntityInput[] = [];
  let texts = 0;
  let relations: RelationInput[] = [];
  const flushEntities = async () => {
    if (entities.length && db) await importEntities(db, writer, entities, report);
    entities = [];
    texts = 0;
    onProgress?.(report);
  };
  const flushRelations = async () => {
    if (relations.length && db) await importRelations(db, writer, relations, report);
    relations = [];
    onProgress?.(report);
  };
  for await (const read of lines) {
    report.lines++;
    let parsed;
    try {
      if (read.tooLong) throw new Error(LINE_TOO_LONG);
      // Editors on some systems start a UTF-8 file with a byte-order mark.
      const line = report.lines === 1 ? read.text.replace(/^\uFEFF/, "") : read.text;
      if (line.trim() === "") continue;
      parsed = parseGraphLine(line, writer.maxChars);
      await secrets.check(stringsIn(parsed.kind === "entity" ? parsed.entity : parsed.relation));
    } catch (error) {
      report.invalidCount++;
      if (report.invalid.length < MAX_INVALID_LISTED) report.invalid.push({ line: report.lines, error: (error as Error).message });
      continue;
    }
    if (parsed.kind === "entity") {
      entities.push(parsed.entity);
      texts += parsed.entity.observations.length;
      if (entities.length >= ENTITY_BATCH || texts >= TEXT_BATCH) await flushEntities();
    } else {
      relations.push(parsed.relation);
      if (relations.length >= RELATION_BATCH) await flushRelations();
    }
  }
  await flushEntities();
  await flushRelations();
  // A bulk load into a new graph leaves the planner with no statistics until
  // autovacuum comes by (up to a minute); reads meanwhile ran ~5x slower
  // (measured: search_nodes 29 ms instead of 6 ms at 10,000 entities).
  if (db && report.entities.created + report.relations.created > 0) await db.exec("analyze graph_entities, graph_observations, graph_relations");
  return report;
}

export interface ExportReport {
  entities: number;
  relations: number;
}

/**
 * Writes the scope's graph as the reference's saveGraph does (entities, then
 * relations, in insertion order), from one snapshot, a page at a time.
 */
export async function exportGraph(db: Database, scope: string, write: (chunk: string) => Promise<void>): Promise<ExportReport> {
  return db.transaction(async (tx) => {
    await tx.query(sql.READ_SNAPSHOT);
    return exportGraphIn(tx, scope, write);
  });
}

/** The scopes that hold a graph (entities or relations), in order: what a whole export writes. */
export async function graphScopes(tx: Queryable): Promise<string[]> {
  return (await tx.query<{ scope: string }>(sql.GRAPH_SCOPES)).rows.map((r) => r.scope);
}

/** exportGraph inside the caller's transaction (a snapshot export writes facts, ledger and graphs from one). */
export async function exportGraphIn(tx: Queryable, scope: string, write: (chunk: string) => Promise<void>): Promise<ExportReport> {
  const report: ExportReport = { entities: 0, relations: 0 };
  let first = true;
  const emit = async (lines: string[]) => {
    if (lines.length === 0) return;
    await write((first ? "" : "\n") + lines.join("\n"));
    first = false;
  };
  for (let after = 0; ; ) {
    const page = await tx.query<{ id: number; name: string; entity_type: string; observations: string[] }>(sql.EXPORT_ENTITIES, [scope, after, EXPORT_PAGE]);
    await emit(page.rows.map((r) => entityLine({ name: r.name, entityType: r.entity_type, observations: r.observations })));
    report.entities += page.rows.length;
    if (page.rows.length < EXPORT_PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
  for (let after = 0; ; ) {
    const page = await tx.query<{ id: number; from_name: string; to_name: string; relation_type: string }>(sql.EXPORT_RELATIONS, [scope, after, EXPORT_PAGE]);
    await emit(page.rows.map((r) => relationLine({ from: r.from_name, to: r.to_name, relationType: r.relation_type })));
    report.relations += page.rows.length;
    if (page.rows.length < EXPORT_PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
  return report;
}
