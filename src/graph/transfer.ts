// Bulk import and export in the reference's JSONL format, streamed in batches so
// a graph of any size moves with bounded memory. Import merges: a new name is
// created, an existing one keeps its type and gains the observations it lacks,
// so importing the same file twice changes nothing the second time.
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import type { Database, Queryable } from "../db/core/database.js";
import { type ImportLine, lineTooLongText } from "../import-file.js";
import { IMPORT_FILES } from "../limits.js";
import * as sql from "./sql.js";
import { entityLine, parseGraphLine, relationLine } from "./jsonl.js";
import type { EntityInput, GraphWriter, Provenance, RelationInput } from "./types.js";
import { withinEntityBounds } from "./entity-bounds.js";

const ENTITY_BATCH = 500;
const TEXT_BATCH = 5000;
const RELATION_BATCH = 1000;
const EXPORT_PAGE = 1000;
/** Lines read before their texts go through the secret guard together. */
const CHECK_BATCH = 500;

export interface ImportReport {
  lines: number;
  entities: { created: number; existing: number };
  observations: { added: number; existing: number };
  relations: { created: number; existing: number };
  invalid: Array<{ line: number; error: string }>;
  invalidCount: number;
}

/** At most this many invalid lines are listed (all are counted). */
const MAX_INVALID_LISTED = 1000;

/** Who wrote a row and when: an agent id, and a time (null: now). */
interface Written {
  by: number;
  at: string | null;
}

interface ImportedEntity {
  entity: EntityInput;
  written: Written;
  /** Each observation's, index-aligned with entity.observations. */
  observations: Written[];
}

interface ImportedRelation {
  relation: RelationInput;
  written: Written;
}

async function importEntities(db: Database, writer: GraphWriter, batch: ImportedEntity[], report: ImportReport): Promise<void> {
  // In-file duplicates merge into the first occurrence, as a later import would.
  const merged = new Map<string, ImportedEntity>();
  for (const e of batch) {
    const seen = merged.get(e.entity.name);
    if (seen) {
      seen.entity.observations.push(...e.entity.observations);
      seen.observations.push(...e.observations);
    } else merged.set(e.entity.name, { ...e, entity: { ...e.entity, observations: [...e.entity.observations] }, observations: [...e.observations] });
  }
  const entities = [...merged.values()];
  const names = entities.map((e) => e.entity.name);
  const texts = entities.reduce((n, e) => n + e.entity.observations.length, 0);
  const { created, added } = await withinEntityBounds(() =>
    db.transaction(async (tx: Queryable) => {
      const inserted = await tx.query<{ id: number; name: string }>(sql.INSERT_ENTITIES, [
        writer.scope,
        names,
        entities.map((e) => e.entity.entityType),
        entities.map((e) => e.written.by),
        entities.map((e) => e.written.at),
      ]);
      const idOf = new Map(inserted.rows.map((r) => [r.name, r.id]));
      // The names that were there already, locked against a delete until this
      // transaction ends; the new ones no other transaction sees yet. (Looking
      // up every name again cost more than the rest of the batch in a graph
      // growing through the import, before ANALYZE: 20 ms a batch at 25,000 entities.)
      const existing = names.filter((n) => !idOf.has(n));
      if (existing.length > 0) {
        for (const r of (await tx.query<{ id: number; name: string }>(sql.KEY_SHARE_ENTITIES_BY_NAME, [writer.scope, existing])).rows) idOf.set(r.name, r.id);
      }
      const ids: number[] = [];
      const contents: string[] = [];
      const written: Written[] = [];
      for (const e of entities) {
        const id = idOf.get(e.entity.name);
        // Deleted by someone else between the two statements: nothing to attach to.
        if (id === undefined) continue;
        e.entity.observations.forEach((c, i) => {
          ids.push(id);
          contents.push(c);
          written.push(e.observations[i]!);
        });
      }
      const obs = ids.length
        ? await tx.query(sql.INSERT_OBSERVATIONS, [ids, contents, written.map((w) => w.by), writer.scope, written.map((w) => w.at)])
        : { rowCount: 0 };
      return { created: inserted.rowCount, added: obs.rowCount };
    }),
  );
  report.entities.created += created;
  report.entities.existing += batch.length - created;
  report.observations.added += added;
  report.observations.existing += texts - added;
}

async function importRelations(db: Database, writer: GraphWriter, batch: ImportedRelation[], report: ImportReport): Promise<void> {
  const r = await withinEntityBounds(() =>
    db.query(sql.IMPORT_RELATIONS, [
      writer.scope,
      batch.map((x) => x.relation.from),
      batch.map((x) => x.relation.to),
      batch.map((x) => x.relation.relationType),
      batch.map((x) => x.written.by),
      batch.map((x) => x.written.at),
    ]),
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
 * Rows are recorded as written by `writer` now, unless `authorOf` is given and
 * a line says who wrote it and when (a whole export's lines): then by that
 * agent (when authorOf knows it) at that time.
 */
export async function importGraph(
  db: Database | null,
  writer: GraphWriter,
  lines: AsyncIterable<ImportLine>,
  options: { secrets: SecretGuard; onProgress?: ((report: ImportReport) => void) | undefined; authorOf?: ((name: string) => number | undefined) | undefined },
): Promise<ImportReport> {
  const { secrets, onProgress, authorOf } = options;
  const written = (p: Provenance | undefined): Written =>
    p && authorOf ? { by: authorOf(p.createdBy) ?? writer.agentId, at: p.createdAt } : { by: writer.agentId, at: null };
  const report: ImportReport = {
    lines: 0,
    entities: { created: 0, existing: 0 },
    observations: { added: 0, existing: 0 },
    relations: { created: 0, existing: 0 },
    invalid: [],
    invalidCount: 0,
  };
  let entities: ImportedEntity[] = [];
  let texts = 0;
  let relations: ImportedRelation[] = [];
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
  // Lines are checked by the secret guard a batch at a time (one scan), then
  // taken in their order: the invalid ones listed, the others batched for writing.
  let pending: Array<{ line: number; parsed: ReturnType<typeof parseGraphLine> } | { line: number; error: string }> = [];
  const take = async () => {
    const valid = pending.flatMap((p) => ("parsed" in p ? [p.parsed] : []));
    const refusals = await secrets.checkEach(valid.map((parsed) => stringsIn(parsed.kind === "entity" ? parsed.entity : parsed.relation)));
    let k = 0;
    for (const p of pending) {
      const refusal = "parsed" in p ? refusals[k++] : null;
      if (!("parsed" in p) || refusal) {
        report.invalidCount++;
        if (report.invalid.length < MAX_INVALID_LISTED) report.invalid.push({ line: p.line, error: "parsed" in p ? refusal!.message : p.error });
        continue;
      }
      const parsed = p.parsed;
      if (parsed.kind === "entity") {
        const meta = parsed.provenance?.observationsMeta;
        entities.push({ entity: parsed.entity, written: written(parsed.provenance), observations: parsed.entity.observations.map((_, i) => written(meta?.[i])) });
        texts += parsed.entity.observations.length;
        if (entities.length >= ENTITY_BATCH || texts >= TEXT_BATCH) await flushEntities();
      } else {
        relations.push({ relation: parsed.relation, written: written(parsed.provenance) });
        if (relations.length >= RELATION_BATCH) await flushRelations();
      }
    }
    pending = [];
  };
  for await (const read of lines) {
    report.lines++;
    try {
      if (read.tooLong) throw new Error(LINE_TOO_LONG);
      // Editors on some systems start a UTF-8 file with a byte-order mark.
      const line = report.lines === 1 ? read.text.replace(/^\uFEFF/, "") : read.text;
      if (line.trim() === "") continue;
      pending.push({ line: report.lines, parsed: parseGraphLine(line, writer.maxChars) });
    } catch (error) {
      pending.push({ line: report.lines, error: (error as Error).message });
    }
    if (pending.length >= CHECK_BATCH) await take();
  }
  await take();
  await flushEntities();
  await flushRelations();
  // A bulk load into a new graph leaves the planner with no statistics until
  // autovacuum comes by (up to a minute); reads meanwhile ran ~5x slower
  // (measured: search_nodes 29 ms instead of 6 ms at 10,000 entities).
  if (db && report.entities.created + report.relations.created > 0) await db.exec("analyze graph_entities, graph_observations, graph_relations");
  return report;
}

interface ExportReport {
  entities: number;
  relations: number;
}

interface EntityRow {
  id: number;
  name: string;
  entity_type: string;
  created_by: string;
  created_at: string;
  observations: string[];
  observation_authors: string[];
  observation_times: string[];
}

/**
 * Writes the scope's graph as the reference's saveGraph does (entities, then
 * relations, in insertion order), from one snapshot, a page at a time.
 */
export async function exportGraph(db: Database, scope: string, write: (chunk: string) => Promise<void>): Promise<ExportReport> {
  return db.transaction(async (tx) => {
    await tx.query(sql.READ_SNAPSHOT);
    return exportGraphIn(tx, scope, write, { provenance: false });
  });
}

/** The scopes that hold a graph (entities or relations), in order: what a whole export writes. */
export async function graphScopes(tx: Queryable): Promise<string[]> {
  return (await tx.query<{ scope: string }>(sql.GRAPH_SCOPES)).rows.map((r) => r.scope);
}

/**
 * exportGraph inside the caller's transaction (a snapshot export writes facts,
 * ledger and graphs from one). `provenance`: each line also says who wrote it
 * and when (a whole export); without, the lines are exactly the reference's.
 */
export async function exportGraphIn(tx: Queryable, scope: string, write: (chunk: string) => Promise<void>, options: { provenance: boolean }): Promise<ExportReport> {
  const report: ExportReport = { entities: 0, relations: 0 };
  let first = true;
  const emit = async (lines: string[]) => {
    if (lines.length === 0) return;
    await write((first ? "" : "\n") + lines.join("\n"));
    first = false;
  };
  for (let after = 0; ; ) {
    const page = await tx.query<EntityRow>(sql.EXPORT_ENTITIES, [scope, after, EXPORT_PAGE]);
    await emit(
      page.rows.map((r) =>
        entityLine(
          { name: r.name, entityType: r.entity_type, observations: r.observations },
          options.provenance
            ? { createdBy: r.created_by, createdAt: r.created_at, observationsMeta: r.observation_authors.map((by, i) => ({ createdBy: by, createdAt: r.observation_times[i]! })) }
            : undefined,
        ),
      ),
    );
    report.entities += page.rows.length;
    if (page.rows.length < EXPORT_PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
  for (let after = 0; ; ) {
    const page = await tx.query<{ id: number; from_name: string; to_name: string; relation_type: string; created_by: string; created_at: string }>(sql.EXPORT_RELATIONS, [scope, after, EXPORT_PAGE]);
    await emit(
      page.rows.map((r) =>
        relationLine({ from: r.from_name, to: r.to_name, relationType: r.relation_type }, options.provenance ? { createdBy: r.created_by, createdAt: r.created_at } : undefined),
      ),
    );
    report.relations += page.rows.length;
    if (page.rows.length < EXPORT_PAGE) break;
    after = page.rows[page.rows.length - 1]!.id;
  }
  return report;
}
