// Reads of the graph: whole (paged), by names, and the
// continuations of a cut answer (a page of relations, of one entity's
// observations); the substring search is in search.ts. Each read sees one snapshot (a single statement, or a read-only
// repeatable-read transaction), so entities, observations and relations agree
// even while other agents write. Every answer is bounded by `maxChars` (see
// bounds.ts); what was cut is said, with the call that returns the rest.
import * as z from "zod/v4";
import type { Database, Queryable } from "../db/database.js";
import { invalid, notFound } from "../errors.js";
import { MAX_OFFSET } from "../limits.js";
import { cursorKey } from "../db/cursor-key.js";
import { openSealedCursor, sealCursor } from "../paging.js";
import { answerBudget, OBSERVATION_FRAME_CHARS, RELATION_FRAME_CHARS } from "./bounds.js";
import { prepared } from "./prepared.js";
import * as sql from "./read-sql.js";
import * as relationsSql from "./relations-sql.js";
import { READ_SNAPSHOT } from "./sql.js";
import type { Graph, GraphEntity, GraphPage, GraphRelation, ObservationPage, PageRequest, Provenance, RelationPage, RelationsCut, RelationsRequest, SearchPageRequest } from "./types.js";
import { validateCallChars, validateItemCount, pageBounds } from "./validate.js";


/** An entity as the read statements build it: totalObservations always set. */
export type EntityRow = Omit<GraphEntity, "totalObservations" | "observationsTruncated"> & { totalObservations: number };

/**
 * How much one graph read may do whatever the scope holds: counts are exact up
 * to `countCap` (GRAPH_SEARCH_COUNT_MAX) and "at least" past it; a walk tests
 * at most `scanMax` rows (GRAPH_SEARCH_SCAN_MAX) and hands out a cursor.
 */
export interface ReadBounds {
  countCap?: number | undefined;
  scanMax?: number | undefined;
}

/**
 * How far the reads count an entity's observations (read-sql.ts, entityPart):
 * the count cap, or one more than an answer of `entityChars` could show, if
 * that is more, so that a count that stopped is always more than was shown.
 */
export const observationCountCap = (countCap: number, entityChars: number) => Math.max(countCap, Math.floor(entityChars / OBSERVATION_FRAME_CHARS) + 1);
/** The same for the relations of the entities shown (keptRelationsTotal). */
export const relationCountCap = (countCap: number, relationChars: number) => Math.max(countCap, Math.floor(relationChars / RELATION_FRAME_CHARS) + 1);

// Old clients see the reference's shape: the extra fields appear only when something was cut.
export function finishEntity(row: EntityRow, countCap: number): GraphEntity {
  const { totalObservations, ...entity } = row;
  if (entity.observations.length >= totalObservations) return entity;
  // Counted up to countCap + 1: more than the cap means "at least".
  return totalObservations > countCap
    ? { ...entity, observationsTruncated: true, totalObservations: countCap, totalObservationsIsLowerBound: true }
    : { ...entity, observationsTruncated: true, totalObservations };
}

const plainRelation = (r: GraphRelation): GraphRelation => ({ from: r.from, to: r.to, relationType: r.relationType });

/** `total` was counted up to `countCap` + 1 (relationCountCap): more than the cap means "at least". */
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
 * endpoints both do not exist, so paging through returns them all. Entities
 * and relations are counted up to `countCap` ("at least" past it), and the
 * last page's walk for unattached relations tests at most `scanMax` of them.
 */
export async function readGraph(db: Database, scope: string, request: PageRequest, maxChars: number, bounds: ReadBounds = {}): Promise<GraphPage> {
  const { limit, offset } = pageBounds(request);
  const budget = answerBudget(maxChars);
  const countMax = Math.max(bounds.countCap ?? COUNT_CAP_DEFAULT, limit);
  return snapshot(db, async (tx) => {
    const counted = (await tx.query<{ n: number }>(sql.COUNT_ENTITIES, [scope, offset, countMax], prepared("count_entities"))).rows[0]?.n ?? 0;
    const lowerBound = counted > offset + countMax;
    const total = Math.min(counted, offset + countMax);
    const countCap = bounds.countCap ?? COUNT_CAP_DEFAULT;
    const rows = (await tx.query<{ entities: EntityRow[] }>(sql.READ_GRAPH_PAGE, [scope, limit, offset, budget.entityChars, countCap], prepared("read_page"))).rows[0]!.entities;
    const entities = rows.map((row) => finishEntity(row, observationCountCap(countCap, budget.entityChars)));
    const names = entities.map((e) => e.name);
    const last = !lowerBound && offset + entities.length >= total && entities.length > 0;
    let relations: GraphRelation[] = [];
    let cut: RelationsCut = {};
    if (offset === 0 && !lowerBound && entities.length >= total) {
      const r = await relationsPage(tx, scope, {}, { after: 0, skip: 0, seen: 0, limit: null, budget: budget.relationChars, fromStart: true }, bounds);
      ({ relations, cut } = graphRelations(r, { scope }));
    } else if (names.length > 0) {
      const request = { names, ...(last ? { unattached: true } : {}) };
      const r = await relationsPage(tx, scope, request, { after: 0, skip: 0, seen: 0, limit: null, budget: budget.relationChars, fromStart: true }, bounds);
      ({ relations, cut } = graphRelations(r, { scope, ...request }));
    }
    return {
      ...page({ entities, relations: relations.map(plainRelation), ...cut }, total, limit, offset, lowerBound || offset + entities.length < total),
      ...(lowerBound ? { totalEntitiesIsLowerBound: true as const } : {}),
    };
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

/** GRAPH_SEARCH_SCAN_MAX's default: entities a search tests one by one per call at most (and twice as many observations). */
export const SEARCH_SCAN_MAX_DEFAULT = 10_000;

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
  const countCap = bounds.countCap ?? COUNT_CAP_DEFAULT;
  const r = await db.query<{ entities: EntityRow[]; relations: GraphRelation[]; total_relations: number }>(sql.OPEN_NODES, [
    scope,
    names,
    budget.entityChars,
    budget.relationChars,
    countCap,
  ], prepared("open"));
  const row = r.rows[0]!;
  const entities = row.entities.map((e) => finishEntity(e, observationCountCap(countCap, budget.entityChars)));
  const cut = relationsCut(row.relations.length, row.total_relations, relationCountCap(countCap, budget.relationChars), { scope, names: entities.map((e) => e.name) });
  return { entities, relations: row.relations, ...cut };
}

export interface RelationsInput extends SearchPageRequest {
  names?: string[] | undefined;
  unattached?: boolean | undefined;
}

/**
 * read_relations' cursor: the relation id the next page starts after, how many
 * matches past it to skip first, and how many matches lie up to it (`seen`:
 * the page's place among all matches, for its numbering and the total).
 */
const RelationCursor = z.object({
  // Which list the cursor belongs to: a search_nodes cursor is refused here.
  k: z.literal("r"),
  after: z.number().int().min(0),
  skip: z.number().int().min(0).max(MAX_OFFSET),
  seen: z.number().int().min(0).max(2_147_483_647),
});

/** GRAPH_SEARCH_COUNT_MAX's default: what a read counts exactly at most. */
const COUNT_CAP_DEFAULT = 10_000;

interface RelationsAt {
  after: number;
  skip: number;
  seen: number;
  limit: number | null;
  budget: number;
  /** The page was asked for by offset (no cursor): nextOffset may continue it. */
  fromStart: boolean;
}

interface RelationsResult {
  relations: GraphRelation[];
  /** Matches in all, as far as counted; see lowerBound. */
  total: number;
  lowerBound: boolean;
  truncated: boolean;
  nextOffset?: number;
  nextCursor?: string;
  scanCut: boolean;
}

interface RelationsRow {
  counted: number;
  count_max: number | null;
  shown: number;
  last_id: string | number | null;
  walked_to: string | number | null;
  relations: GraphRelation[];
}

/**
 * One page of relations (relations-sql.ts), in one statement whose work is
 * bounded by the cap and the walk's bound, not by what the scope holds.
 */
async function relationsPage(db: Queryable, scope: string, input: { names?: string[] | undefined; unattached?: boolean | undefined }, at: RelationsAt, bounds: ReadBounds): Promise<RelationsResult> {
  const cap = bounds.countCap ?? COUNT_CAP_DEFAULT;
  const every = input.names === undefined && !input.unattached;
  const row = (
    every
      ? await db.query<RelationsRow>(relationsSql.RELATIONS_ALL, [scope, at.after, at.skip, at.limit, at.budget, cap], prepared("relations_all"))
      : await db.query<RelationsRow>(
          relationsSql.RELATIONS_TOUCHING,
          [scope, input.names ?? [], input.unattached ?? false, at.after, at.skip, at.limit, at.budget, cap, bounds.scanMax ?? SEARCH_SCAN_MAX_DEFAULT],
          prepared("relations_touching"),
        )
  ).rows[0]!;
  const shown = row.shown;
  const lastId = row.last_id === null ? null : Number(row.last_id);
  const walkedTo = row.walked_to === null ? null : Number(row.walked_to);
  // Every relation: counted past `after`, skipped ones included, up to skip + count_max + 1.
  // Touching or unattached: matches past `after`, every one unless the walk stopped at its bound.
  const matched = every ? Math.min(row.counted, at.skip + row.count_max!) : row.counted;
  const lowerBound = every ? row.counted > at.skip + row.count_max! : walkedTo !== null;
  const more = every ? row.counted > at.skip + shown : matched > at.skip + shown;
  const key = await cursorKey(db);
  const nextCursor =
    more && lastId !== null
      ? sealCursor(key, { k: "r", after: lastId, skip: 0, seen: at.seen + at.skip + shown })
      : walkedTo !== null
        ? sealCursor(key, { k: "r", after: walkedTo, skip: Math.max(0, at.skip - matched), seen: at.seen + matched })
        : undefined;
  const scanCut = walkedTo !== null && !more;
  return {
    relations: row.relations,
    // Past the end (nothing shown) the matches counted are the total, not the offset asked for.
    total: at.seen + (shown > 0 ? Math.max(matched, at.skip + shown) : matched),
    lowerBound,
    truncated: nextCursor !== undefined,
    // An offset restarts from the first match: only for pages asked for by offset, and not past a cut walk.
    ...(nextCursor !== undefined && at.fromStart && !scanCut ? { nextOffset: at.seen + at.skip + shown } : {}),
    ...(nextCursor !== undefined ? { nextCursor } : {}),
    scanCut,
  };
}

/**
 * A page of relations in insertion order: every relation of the scope, or those
 * with an endpoint among `names`, plus (with `unattached`) those neither of whose
 * endpoints is an existing entity. Without names, `unattached` lists only those.
 * Pages come by `offset` or after a `cursor` (an earlier page's nextCursor).
 * Counts stop at `countCap` ("at least" past it); finding unattached relations,
 * or those of a name with more than `countCap` of them, walks at most `scanMax`
 * relations per call (scanCut, nextCursor goes on).
 */
export async function readRelations(db: Queryable, scope: string, input: RelationsInput, maxChars: number, bounds: ReadBounds = {}): Promise<RelationPage> {
  const { limit, offset } = pageBounds(input);
  if (input.names) {
    validateItemCount("names", input.names.length);
    validateCallChars("names", input.names);
  }
  const cursor = input.cursor === undefined ? undefined : openSealedCursor(await cursorKey(db), input.cursor, RelationCursor);
  if (cursor && offset !== 0) {
    throw invalid("Pass either offset or cursor, not both: a cursor (nextCursor of the previous page) already says where the next page starts.");
  }
  const r = await relationsPage(
    db,
    scope,
    input,
    { after: cursor?.after ?? 0, skip: cursor?.skip ?? offset, seen: cursor?.seen ?? 0, limit, budget: maxChars, fromStart: !cursor },
    bounds,
  );
  return {
    relations: r.relations,
    totalRelations: r.total,
    ...(r.lowerBound ? { totalRelationsIsLowerBound: true as const } : {}),
    offset: (cursor?.seen ?? 0) + (cursor?.skip ?? offset),
    limit,
    truncated: r.truncated,
    ...(r.nextOffset !== undefined ? { nextOffset: r.nextOffset } : {}),
    ...(r.nextCursor !== undefined ? { nextCursor: r.nextCursor } : {}),
    ...(r.scanCut ? { scanCut: true as const } : {}),
  };
}

/**
 * A page of one entity's observations in insertion order, with who added each
 * and when. They are counted from the page on, up to `countCap` ("at least" past it).
 */
export async function readObservations(db: Queryable, scope: string, name: string, request: PageRequest, maxChars: number, bounds: ReadBounds = {}): Promise<ObservationPage> {
  const { limit, offset } = pageBounds(request);
  const countMax = Math.max(bounds.countCap ?? COUNT_CAP_DEFAULT, limit);
  const r = await db.query<{ name: string; entity_type: string; counted: number; observations: string[]; meta: Provenance[] }>(sql.ENTITY_OBSERVATIONS, [
    scope,
    name,
    offset,
    limit,
    maxChars,
    countMax,
  ], prepared("observations"));
  const row = r.rows[0];
  if (!row) throw notFound(`Entity with name ${name} not found (scope "${scope}"). Names are exact; search_nodes finds them by part of the name.`);
  const lowerBound = row.counted > offset + countMax;
  const truncated = row.counted > offset + row.observations.length;
  return {
    name: row.name,
    entityType: row.entity_type,
    observations: row.observations,
    observationsMeta: row.meta,
    totalObservations: Math.min(row.counted, offset + countMax),
    ...(lowerBound ? { totalObservationsIsLowerBound: true as const } : {}),
    offset,
    limit,
    truncated,
    ...(truncated ? { nextOffset: offset + row.observations.length } : {}),
  };
}
