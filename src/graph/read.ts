// Reads of the graph: whole (paged), by names, and the continuation of an
// entity's cut observations; the substring search is in search.ts, a page of
// relations in relations.ts. Each read sees one snapshot (a single statement, or a read-only
// repeatable-read transaction), so entities, observations and relations agree
// even while other agents write. Every answer is bounded by `maxChars` (see
// bounds.ts); what was cut is said, with the call that returns the rest.
import type { Database, Queryable } from "../db/core/database.js";
import { notFound } from "../errors.js";
import { GRAPH_SEARCH_COUNT_MAX } from "../limits.js";
import { answerBudget, type ReadBounds } from "./bounds.js";
import { prepared } from "./prepared.js";
import * as sql from "./read-sql.js";
import { relationsPage, type RelationsResult } from "./relations.js";
import { READ_SNAPSHOT } from "./sql.js";
import type { Graph, GraphEntity, GraphPage, GraphRelation, ObservationPage, PageRequest, Provenance, RelationsCut, RelationsRequest } from "./types.js";
import { validateCallChars, validateItemCount, pageBounds } from "./validate.js";

/** An entity as the read statements build it: totalObservations always set. */
export type EntityRow = Omit<GraphEntity, "totalObservations" | "observationsTruncated"> & { totalObservations: number };

// Old clients see the reference's shape: the extra fields appear only when something was cut.
export function finishEntity(row: EntityRow): GraphEntity {
  const { totalObservations, ...entity } = row;
  if (entity.observations.length >= totalObservations) return entity;
  return { ...entity, observationsTruncated: true, totalObservations };
}

const plainRelation = (r: GraphRelation): GraphRelation => ({ from: r.from, to: r.to, relationType: r.relationType });

/** `total` was counted up to `countCap` + 1 (am_graph_relations_touching): more than the cap means "at least". */
export function relationsCut(shown: number, total: number, countCap: number, next: Omit<RelationsRequest, "offset">): RelationsCut {
  if (shown >= total) return {};
  return {
    relationsTruncated: true,
    totalRelations: Math.min(total, countCap),
    ...(total > countCap ? { totalRelationsIsLowerBound: true as const } : {}),
    nextRelations: { ...next, offset: shown },
  };
}


function snapshot<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(READ_SNAPSHOT);
    return work(tx);
  });
}

/** `more`: entities follow this page (by default: fewer than `total` were shown up to here). */
function page(graph: Graph, total: number, limit: number, offset: number, more = offset + graph.entities.length < total): GraphPage {
  return {
    ...graph,
    totalEntities: total,
    offset,
    limit,
    truncated: more,
    ...(more ? { nextOffset: offset + graph.entities.length } : {}),
  };
}

/**
 * The scope's graph, a page of entities at a time (insertion order), cut short
 * when the entities' text would pass the budget. A page that holds the whole
 * graph has every relation, as the reference's read_graph; a partial page has
 * the relations touching its entities, and the last page also those whose
 * endpoints both do not exist, so paging through returns them all. The
 * entities' total is exact (kept per scope as entities are written);
 * relations are counted up to `countCap` ("at least" past it), and the last
 * page's walk for unattached relations tests at most `scanMax` of them.
 */
export async function readGraph(db: Database, scope: string, request: PageRequest, maxChars: number, bounds: ReadBounds = {}): Promise<GraphPage> {
  const { limit, offset } = pageBounds(request);
  const budget = answerBudget(maxChars);
  return snapshot(db, async (tx) => {
    const total = (await tx.query<{ n: number }>(sql.SCOPE_ENTITY_COUNT, [scope], prepared("scope_entity_count"))).rows[0]!.n;
    const rows = (await tx.query<{ r: { entities: EntityRow[] } }>(sql.GRAPH_PAGE, [scope, limit, offset, budget.entityChars], prepared("page"))).rows[0]!.r.entities;
    const entities = rows.map((row) => finishEntity(row));
    const names = entities.map((e) => e.name);
    const last = offset + entities.length >= total && entities.length > 0;
    let relations: GraphRelation[] = [];
    let cut: RelationsCut = {};
    if (offset === 0 && entities.length >= total) {
      const r = await relationsPage(tx, scope, {}, { after: 0, skip: 0, seen: 0, limit: null, budget: budget.relationChars, fromStart: true }, bounds);
      ({ relations, cut } = graphRelations(r, { scope }));
    } else if (names.length > 0) {
      const request = { names, ...(last ? { unattached: true } : {}) };
      const r = await relationsPage(tx, scope, request, { after: 0, skip: 0, seen: 0, limit: null, budget: budget.relationChars, fromStart: true }, bounds);
      ({ relations, cut } = graphRelations(r, { scope, ...request }));
    }
    return page({ entities, relations: relations.map(plainRelation), ...cut }, total, limit, offset);
  });
}

/** A page of relations as read_graph shows it: without provenance, and where the rest is. */
function graphRelations(r: RelationsResult, next: Omit<RelationsRequest, "offset" | "cursor">): { relations: GraphRelation[]; cut: RelationsCut } {
  if (!r.truncated) return { relations: r.relations, cut: {} };
  return {
    relations: r.relations,
    cut: {
      relationsTruncated: true,
      totalRelations: r.total,
      ...(r.lowerBound ? { totalRelationsIsLowerBound: true as const } : {}),
      nextRelations: { ...next, ...(r.nextOffset !== undefined ? { offset: r.nextOffset } : { cursor: r.nextCursor! }) },
    },
  };
}


/**
 * The named entities that exist (in insertion order, as the reference) with the
 * relations that have at least one endpoint among them, and who wrote what when.
 * Every such entity is listed; once the budget is spent, the rest come without
 * their observations (each marked, for read_observations).
 */
export async function openNodes(db: Queryable, scope: string, names: string[], maxChars: number, bounds: ReadBounds = {}): Promise<Graph> {
  validateItemCount("names", names.length);
  validateCallChars("names", names);
  if (names.length === 0) return { entities: [], relations: [] };
  const budget = answerBudget(maxChars);
  const countCap = bounds.countCap ?? GRAPH_SEARCH_COUNT_MAX;
  type Row = { entities: EntityRow[]; relations: GraphRelation[]; totalRelations: number; relationsCountCap: number };
  const r = await db.query<{ r: Row }>(sql.GRAPH_OPEN, [scope, names, budget.entityChars, budget.relationChars, countCap], prepared("open"));
  const row = r.rows[0]!.r;
  const entities = row.entities.map((e) => finishEntity(e));
  const cut = relationsCut(row.relations.length, row.totalRelations, row.relationsCountCap, { scope, names: entities.map((e) => e.name) });
  return { entities, relations: row.relations, ...cut };
}

/**
 * A page of one entity's observations in insertion order, with who added each
 * and when. They are counted from the page on, up to `countCap` ("at least" past it).
 */
export async function readObservations(db: Queryable, scope: string, name: string, request: PageRequest, maxChars: number, bounds: ReadBounds = {}): Promise<ObservationPage> {
  const { limit, offset } = pageBounds(request);
  const r = await db.query<{ name: string; entity_type: string; counted: number; observations: string[]; meta: Provenance[] }>(
    sql.ENTITY_OBSERVATIONS,
    [scope, name, offset, limit, maxChars],
    prepared("observations"),
  );
  const row = r.rows[0];
  if (!row) throw notFound(`Entity with name ${name} not found (scope "${scope}"). Names are exact; search_nodes finds them by part of the name.`);
  const truncated = row.counted > offset + row.observations.length;
  return {
    name: row.name,
    entityType: row.entity_type,
    observations: row.observations,
    observationsMeta: row.meta,
    totalObservations: row.counted,
    offset,
    limit,
    truncated,
    ...(truncated ? { nextOffset: offset + row.observations.length } : {}),
  };
}
