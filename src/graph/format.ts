// Text answers. The reference answers with JSON.stringify(result, null, 2) of its
// plain shapes; we do the same (provenance stays in structuredContent only), so
// prompts and programs that parse the text keep working. A cut answer stays
// valid JSON and says first what was cut and how to get the rest.
import type { EntityInput, GraphEntity, GraphPage, GraphRelation, RelationInput } from "./types.js";

export const json = (value: unknown): string => JSON.stringify(value, null, 2);

// Rebuilt field by field so the key order is the reference's whatever the source.
export const plainEntity = (e: GraphEntity | EntityInput): EntityInput => ({ name: e.name, entityType: e.entityType, observations: e.observations });
export const plainRelation = (r: GraphRelation | RelationInput): RelationInput => ({ from: r.from, to: r.to, relationType: r.relationType });

export function graphText(graph: { entities: GraphEntity[]; relations: GraphRelation[] }): string {
  return json({ entities: graph.entities.map(plainEntity), relations: graph.relations.map(plainRelation) });
}

/** read_graph / search_nodes: the reference text, plus a note when the answer is only part of the result. */
export function pageText(tool: "read_graph" | "search_nodes", page: GraphPage): string {
  if (page.offset === 0 && !page.truncated) return graphText(page);
  const shown = page.entities.length;
  const range = shown > 0 ? `entities ${page.offset + 1}-${page.offset + shown} of ${page.totalEntities}` : `no entities (offset ${page.offset}, total ${page.totalEntities})`;
  const note = page.truncated
    ? `This answer holds ${range}, cut at limit ${page.limit} to keep it small. ` +
      `For the next page call ${tool} again with the same arguments and offset ${page.nextOffset}. ` +
      `Relations listed are those touching the entities shown.`
    : `This answer holds ${range}: the last page. Relations listed are those touching the entities shown` +
      (tool === "read_graph" ? " and those whose endpoints both do not exist." : ".");
  return json({
    note,
    totalEntities: page.totalEntities,
    truncated: page.truncated,
    ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}),
    entities: page.entities.map(plainEntity),
    relations: page.relations.map(plainRelation),
  });
}
