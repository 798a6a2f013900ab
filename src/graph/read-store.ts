// Reads of the graph: whole (paged), by substring search, by names. Each read is
// one read-only repeatable-read transaction, so the entities, their observations
// and the relations come from one snapshot even while other agents write.
import type { Database, Queryable } from "../db/database.js";
import * as sql from "./sql.js";
import type { Graph, GraphEntity, GraphPage, GraphRelation, PageRequest } from "./types.js";
import { checkItemCount, likePattern, pageBounds } from "./validate.js";

interface EntityRow {
  id: number;
  name: string;
  entity_type: string;
  created_at: Date;
  created_by: string;
  total?: number;
}

interface ObservationRow {
  entity_id: number;
  content: string;
  created_at: Date;
  created_by: string;
}

interface RelationRow {
  id: number;
  from_name: string;
  to_name: string;
  relation_type: string;
  created_at: Date;
  created_by: string;
}

/** Searches of three or more characters go through the trigram indexes (see PREFER_INDEXES). */
export const INDEXED_QUERY_MIN_CHARS = 3;

async function loadEntities(q: Queryable, rows: EntityRow[], provenance: boolean): Promise<GraphEntity[]> {
  if (rows.length === 0) return [];
  const obs = await q.query<ObservationRow>(sql.OBSERVATIONS_OF, [rows.map((r) => r.id)]);
  const byEntity = new Map<number, ObservationRow[]>();
  for (const o of obs.rows) {
    const list = byEntity.get(o.entity_id);
    if (list) list.push(o);
    else byEntity.set(o.entity_id, [o]);
  }
  return rows.map((r) => {
    const list = byEntity.get(r.id) ?? [];
    const entity: GraphEntity = { name: r.name, entityType: r.entity_type, observations: list.map((o) => o.content) };
    if (provenance) {
      entity.createdBy = r.created_by;
      entity.createdAt = r.created_at.toISOString();
      entity.observationsMeta = list.map((o) => ({ createdBy: o.created_by, createdAt: o.created_at.toISOString() }));
    }
    return entity;
  });
}

function toRelation(r: RelationRow, provenance: boolean): GraphRelation {
  const relation: GraphRelation = { from: r.from_name, to: r.to_name, relationType: r.relation_type };
  if (provenance) {
    relation.createdBy = r.created_by;
    relation.createdAt = r.created_at.toISOString();
  }
  return relation;
}

async function relationsTouching(q: Queryable, scope: string, names: string[], includeDangling: boolean, provenance: boolean): Promise<GraphRelation[]> {
  if (names.length === 0 && !includeDangling) return [];
  const r = await q.query<RelationRow>(sql.RELATIONS_TOUCHING, [scope, names, includeDangling]);
  return r.rows.map((row) => toRelation(row, provenance));
}

function snapshot<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query(sql.READ_SNAPSHOT);
    return work(tx);
  });
}

function page(entities: GraphEntity[], relations: GraphRelation[], total: number, limit: number, offset: number): GraphPage {
  const truncated = offset + entities.length < total;
  return {
    entities,
    relations,
    totalEntities: total,
    offset,
    limit,
    truncated,
    ...(truncated ? { nextOffset: offset + entities.length } : {}),
  };
}

/**
 * The scope's graph, a page of entities at a time (insertion order). A page that
 * holds the whole graph has every relation, as the reference's read_graph; a
 * partial page has the relations touching its entities, and the last page also
 * those whose endpoints both do not exist, so paging through returns them all.
 */
export async function readGraph(db: Database, scope: string, request: PageRequest): Promise<GraphPage> {
  const { limit, offset } = pageBounds(request);
  return snapshot(db, async (tx) => {
    const total = (await tx.query<{ n: number }>(sql.COUNT_ENTITIES, [scope])).rows[0]?.n ?? 0;
    const rows = (await tx.query<EntityRow>(sql.PAGE_ENTITIES, [scope, limit, offset])).rows;
    const entities = await loadEntities(tx, rows, false);
    const whole = offset === 0 && rows.length >= total;
    let relations: GraphRelation[];
    if (whole) {
      relations = (await tx.query<RelationRow>(sql.ALL_RELATIONS, [scope])).rows.map((r) => toRelation(r, false));
    } else {
      const last = offset + rows.length >= total && rows.length > 0;
      relations = await relationsTouching(tx, scope, rows.map((r) => r.name), last, false);
    }
    return page(entities, relations, total, limit, offset);
  });
}

/**
 * Entities whose name, type or any observation contains `query`, case-insensitive
 * (an empty query matches every entity, as in the reference), with the relations
 * that have at least one endpoint among the entities returned.
 */
export async function searchNodes(db: Database, scope: string, query: string, request: PageRequest): Promise<GraphPage> {
  const { limit, offset } = pageBounds(request);
  return snapshot(db, async (tx) => {
    if ([...query].length >= INDEXED_QUERY_MIN_CHARS) await tx.query(sql.PREFER_INDEXES);
    const pattern = likePattern(query);
    const rows = (await tx.query<EntityRow>(sql.SEARCH_ENTITIES, [scope, pattern, limit, offset])).rows;
    let total = rows[0]?.total;
    if (total === undefined) {
      total = offset === 0 ? 0 : ((await tx.query<{ n: number }>(sql.COUNT_SEARCH, [scope, pattern])).rows[0]?.n ?? 0);
    }
    const entities = await loadEntities(tx, rows, false);
    const relations = await relationsTouching(tx, scope, rows.map((r) => r.name), false, false);
    return page(entities, relations, total, limit, offset);
  });
}

/**
 * The named entities that exist (in insertion order, as the reference) with the
 * relations that have at least one endpoint among them, and who wrote what when.
 */
export async function openNodes(db: Database, scope: string, names: string[]): Promise<Graph> {
  checkItemCount("names", names.length);
  if (names.length === 0) return { entities: [], relations: [] };
  return snapshot(db, async (tx) => {
    const rows = (await tx.query<EntityRow>(sql.ENTITIES_BY_NAME, [scope, names])).rows;
    const entities = await loadEntities(tx, rows, true);
    const relations = await relationsTouching(tx, scope, rows.map((r) => r.name), false, true);
    return { entities, relations };
  });
}
