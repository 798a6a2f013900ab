// Reads of the graph: whole (paged), by substring search, by names. Each read
// sees one snapshot (a single statement, or a read-only repeatable-read
// transaction), so entities, observations and relations agree even while other
// agents write.
import type { Database, Queryable } from "../db/database.js";
import * as sql from "./sql.js";
import type { Graph, GraphEntity, GraphPage, GraphRelation, PageRequest } from "./types.js";
import { checkItemCount, likePattern, pageBounds } from "./validate.js";

interface EntityRow {
  id: number;
  name: string;
  entity_type: string;
}

interface ObservationRow {
  entity_id: number;
  content: string;
}

interface RelationRow {
  id: number;
  from_name: string;
  to_name: string;
  relation_type: string;
}

/** Searches of three or more characters go through the trigram indexes (see am_graph_match). */
export const INDEXED_QUERY_MIN_CHARS = 3;

async function loadEntities(q: Queryable, rows: EntityRow[]): Promise<GraphEntity[]> {
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
    return { name: r.name, entityType: r.entity_type, observations: list.map((o) => o.content) };
  });
}

const toRelation = (r: RelationRow): GraphRelation => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type });

async function relationsTouching(q: Queryable, scope: string, names: string[], includeDangling: boolean): Promise<GraphRelation[]> {
  if (names.length === 0 && !includeDangling) return [];
  const r = await q.query<RelationRow>(sql.RELATIONS_TOUCHING, [scope, names, includeDangling]);
  return r.rows.map(toRelation);
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
    const entities = await loadEntities(tx, rows);
    const whole = offset === 0 && rows.length >= total;
    let relations: GraphRelation[];
    if (whole) {
      relations = (await tx.query<RelationRow>(sql.ALL_RELATIONS, [scope])).rows.map(toRelation);
    } else {
      const last = offset + rows.length >= total && rows.length > 0;
      relations = await relationsTouching(tx, scope, rows.map((r) => r.name), last);
    }
    return page(entities, relations, total, limit, offset);
  });
}

/**
 * Entities whose name, type or any observation contains `query`, case-insensitive
 * (an empty query matches every entity, as in the reference), with the relations
 * that have at least one endpoint among the entities returned. One statement.
 */
export async function searchNodes(db: Queryable, scope: string, query: string, request: PageRequest): Promise<GraphPage> {
  const { limit, offset } = pageBounds(request);
  const indexed = [...query].length >= INDEXED_QUERY_MIN_CHARS;
  const pattern = likePattern(query);
  const r = await db.query<{ total: number | null } & Graph>(indexed ? sql.SEARCH_NODES : sql.SEARCH_NODES_SHORT, [scope, pattern, limit, offset]);
  const { entities, relations } = r.rows[0]!;
  let total = r.rows[0]!.total;
  if (total === null) {
    total = offset === 0 ? 0 : ((await db.query<{ n: number }>(indexed ? sql.COUNT_SEARCH : sql.COUNT_SEARCH_SHORT, [scope, pattern])).rows[0]?.n ?? 0);
  }
  return page(entities, relations, total, limit, offset);
}

/**
 * The named entities that exist (in insertion order, as the reference) with the
 * relations that have at least one endpoint among them, and who wrote what when.
 */
export async function openNodes(db: Queryable, scope: string, names: string[]): Promise<Graph> {
  checkItemCount("names", names.length);
  if (names.length === 0) return { entities: [], relations: [] };
  const r = await db.query<Graph>(sql.OPEN_NODES, [scope, names]);
  return { entities: r.rows[0]!.entities, relations: r.rows[0]!.relations };
}
