// Writes to the graph. Each call is one transaction (or one statement) whatever
// its size: batches go to Postgres as parallel arrays. Duplicates are settled by
// the unique indexes (`on conflict do nothing`), never by read-then-insert, so
// concurrent agents neither lose writes nor create twins.
import type { Queryable } from "../db/core/database.js";
import { withDeadlockRetry } from "../db/core/retry.js";
import { invalid, notFound } from "../errors.js";
import { MAX_DELETED_ROWS_PER_CALL } from "../limits.js";
import { REFUSING_GUARD, stringsIn } from "../secrets/guard.js";
import { withinEntityBounds } from "./entity-bounds.js";
import { prepared } from "./prepared.js";
import * as sql from "./sql.js";
import type { AddedObservations, EntityInput, GraphWriter, ObservationDeletion, ObservationInput, RelationInput } from "./types.js";
import { validateCallChars, validateItemCount, validateTextCount, validateEntities, validateObservations, validateRelations } from "./validate.js";

/** First occurrence wins: the reference would store both copies of an in-call duplicate. */
function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

const relationKey = (r: RelationInput) => JSON.stringify([r.from, r.to, r.relationType]);

/** Entities whose names are new in the scope, with their observations; existing names are skipped. */
export async function createEntities(db: Queryable, writer: GraphWriter, entities: EntityInput[]): Promise<EntityInput[]> {
  validateEntities(entities, writer.maxChars, writer.maxCallChars, writer.maxCallTexts);
  await (writer.secrets ?? REFUSING_GUARD).check(stringsIn(entities, "entities"));
  const unique = uniqueBy(entities, (e) => e.name).map((e) => ({
    name: e.name,
    entityType: e.entityType,
    observations: [...new Set(e.observations)],
  }));
  if (unique.length === 0) return [];
  const obsEntity: number[] = [];
  const obsContent: string[] = [];
  unique.forEach((e, i) => {
    for (const content of e.observations) {
      obsEntity.push(i + 1);
      obsContent.push(content);
    }
  });
  const r = await withinEntityBounds(() =>
    db.query<{ name: string }>(sql.CREATE_ENTITIES, [
      writer.scope,
      unique.map((e) => e.name),
      unique.map((e) => e.entityType),
      writer.agentId,
      obsEntity,
      obsContent,
    ], prepared("create_entities")),
  );
  const created = new Set(r.rows.map((row) => row.name));
  return unique.filter((e) => created.has(e.name));
}

/** Relations new in the scope; duplicates are skipped. Endpoints need not exist (as in the reference). */
export async function createRelations(db: Queryable, writer: GraphWriter, relations: RelationInput[]): Promise<RelationInput[]> {
  validateRelations(relations, writer.maxChars, "relations", writer.maxCallChars);
  await (writer.secrets ?? REFUSING_GUARD).check(stringsIn(relations, "relations"));
  const unique = uniqueBy(relations, relationKey).map((r) => ({ from: r.from, to: r.to, relationType: r.relationType }));
  if (unique.length === 0) return [];
  const r = await withinEntityBounds(() =>
    db.query<{ from_name: string; to_name: string; relation_type: string }>(sql.CREATE_RELATIONS, [
      writer.scope,
      unique.map((x) => x.from),
      unique.map((x) => x.to),
      unique.map((x) => x.relationType),
      writer.agentId,
    ], prepared("create_relations")),
  );
  const created = new Set(r.rows.map((row) => relationKey({ from: row.from_name, to: row.to_name, relationType: row.relation_type })));
  return unique.filter((x) => created.has(relationKey(x)));
}

/**
 * Appends observations to existing entities, in one statement. Every named
 * entity must exist: a missing one fails the whole call and nothing is written
 * (the reference fails the same way, with the same words).
 */
export async function addObservations(db: Queryable, writer: GraphWriter, items: ObservationInput[]): Promise<AddedObservations[]> {
  validateObservations(items, writer.maxChars, writer.maxCallChars, writer.maxCallTexts);
  await (writer.secrets ?? REFUSING_GUARD).check(stringsIn(items, "observations"));
  if (items.length === 0) return [];
  const names = [...new Set(items.map((o) => o.entityName))];
  const pairNames: string[] = [];
  const pairContents: string[] = [];
  for (const o of items) {
    for (const c of o.contents) {
      pairNames.push(o.entityName);
      pairContents.push(c);
    }
  }
  const r = await withinEntityBounds(() =>
    db.query<{ entities: Array<{ id: number; name: string }>; inserted: Array<[number, string]> }>(sql.ADD_OBSERVATIONS, [
      writer.scope,
      names,
      pairNames,
      pairContents,
      writer.agentId,
    ], prepared("add_observations")),
  );
  const { entities, inserted } = r.rows[0]!;
  const idOf = new Map(entities.map((e) => [e.name, e.id]));
  const missing = names.find((n) => !idOf.has(n));
  if (missing !== undefined) {
    throw notFound(`Entity with name ${missing} not found (scope "${writer.scope}"). Create it with create_entities first; nothing was written.`, {
      entityName: missing,
    });
  }
  // A text inserted now belongs to the first item that carried it, as in the
  // reference, which checks each item against what the earlier ones added.
  const fresh = new Set(inserted.map(([id, content]) => JSON.stringify([id, content])));
  return items.map((o) => {
    const added: string[] = [];
    for (const c of o.contents) {
      if (fresh.delete(JSON.stringify([idOf.get(o.entityName), c]))) added.push(c);
    }
    return { entityName: o.entityName, addedObservations: added };
  });
}

/** Who deletes, and where: recorded with what they removed (graph_deletions). */
type Deleter = Pick<GraphWriter, "scope" | "agentId" | "maxCallTexts">;

interface DeletedCounts {
  entities: number;
  relations: number;
  observations: number;
}

/** Deletes entities (their observations go with them) and every relation from or to the names. Missing names are ignored. */
export async function deleteEntities(db: Queryable, writer: Deleter, names: string[]): Promise<DeletedCounts> {
  validateItemCount("entityNames", names.length);
  validateCallChars("entityNames", names);
  if (names.length === 0) return { entities: 0, relations: 0, observations: 0 };
  const r = await withDeadlockRetry(() =>
    db.query<DeletedCounts & { planned: number }>(sql.DELETE_ENTITIES, [writer.scope, names, writer.agentId, MAX_DELETED_ROWS_PER_CALL], prepared("delete_entities")),
  );
  const { planned, ...counts } = r.rows[0]!;
  if (planned > MAX_DELETED_ROWS_PER_CALL) {
    throw invalid(
      `These ${names.length} entities carry ${planned} observations and relations together; one delete_entities call removes at most ${MAX_DELETED_ROWS_PER_CALL}. ` +
        "Delete fewer entities per call. Nothing was deleted.",
      { limit: MAX_DELETED_ROWS_PER_CALL },
    );
  }
  return counts;
}

/** Deletes the given observation texts; missing entities or texts are ignored. */
export async function deleteObservations(db: Queryable, writer: Deleter, deletions: ObservationDeletion[]): Promise<DeletedCounts> {
  validateItemCount("deletions", deletions.length);
  // Each deletion may list any number of texts: bound them as add_observations does.
  validateTextCount("deletions' observations", deletions.reduce((n, d) => n + d.observations.length, 0), writer.maxCallTexts);
  validateCallChars("deletions", deletions.flatMap((d) => [d.entityName, ...d.observations]));
  const names: string[] = [];
  const contents: string[] = [];
  for (const d of deletions) {
    for (const o of d.observations) {
      names.push(d.entityName);
      contents.push(o);
    }
  }
  if (names.length === 0) return { entities: 0, relations: 0, observations: 0 };
  const r = await withDeadlockRetry(() => db.query<{ n: number }>(sql.DELETE_OBSERVATIONS, [writer.scope, names, contents, writer.agentId], prepared("delete_observations")));
  return { entities: 0, relations: 0, observations: r.rows[0]?.n ?? 0 };
}

/** Deletes exactly matching relations; missing ones are ignored. */
export async function deleteRelations(db: Queryable, writer: Deleter, relations: RelationInput[]): Promise<DeletedCounts> {
  validateItemCount("relations", relations.length);
  validateCallChars("relations", relations.flatMap((x) => [x.from, x.to, x.relationType]));
  if (relations.length === 0) return { entities: 0, relations: 0, observations: 0 };
  const r = await withDeadlockRetry(() =>
    db.query<{ n: number }>(
      sql.DELETE_RELATIONS,
      [writer.scope, relations.map((x) => x.from), relations.map((x) => x.to), relations.map((x) => x.relationType), writer.agentId],
      prepared("delete_relations"),
    ),
  );
  return { entities: 0, relations: r.rows[0]?.n ?? 0, observations: 0 };
}
