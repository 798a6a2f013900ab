// Text answers. The reference answers with JSON.stringify(result, null, 2) of its
// plain shapes; we do the same (provenance stays in structuredContent only), so
// prompts and programs that parse the text keep working. A cut answer stays
// valid JSON and says first what was cut and how to get the rest.
import type { EntityInput, Graph, GraphEntity, GraphPage, GraphRelation, ObservationPage, RelationInput, RelationPage } from "./types.js";

export const json = (value: unknown): string => JSON.stringify(value, null, 2);

// Rebuilt field by field so the key order is the reference's whatever the source.
const plainEntity = (e: GraphEntity | EntityInput): EntityInput => ({ name: e.name, entityType: e.entityType, observations: e.observations });
const plainRelation = (r: GraphRelation | RelationInput): RelationInput => ({ from: r.from, to: r.to, relationType: r.relationType });

// An entity whose observations were cut keeps its marks in the text too.
const textEntity = (e: GraphEntity) =>
  e.observationsTruncated
    ? {
        ...plainEntity(e),
        observationsTruncated: true,
        totalObservations: e.totalObservations,
      }
    : plainEntity(e);

/** What a bounded answer left out besides entity pages, and which call returns it. */
function cutNotes(graph: Graph): string[] {
  const notes: string[] = [];
  const cut = graph.entities.filter((e) => e.observationsTruncated);
  if (cut.length > 0) {
    const who = cut.length === 1 ? `Entity ${JSON.stringify(cut[0]!.name)} shows` : `${cut.length} entities show`;
    notes.push(
      `${who} only part of its observations (marked observationsTruncated, with totalObservations) to keep the answer small: ` +
        `read_observations with the entity's name and offset = the number shown returns the rest.`,
    );
  }
  if (graph.relationsTruncated) {
    notes.push(
      `This answer holds ${graph.relations.length} of ${graph.totalRelationsIsLowerBound ? "at least " : ""}${graph.totalRelations} relations, cut to keep it small: ` +
        `read_relations with the arguments in nextRelations returns the rest.`,
    );
  }
  return notes;
}

const relationFields = (graph: Graph) =>
  graph.relationsTruncated
    ? {
        relationsTruncated: true,
        totalRelations: graph.totalRelations,
        ...(graph.totalRelationsIsLowerBound ? { totalRelationsIsLowerBound: true } : {}),
        nextRelations: graph.nextRelations,
      }
    : {};

/** open_nodes (and uncut pages): the reference's text, plus a note when something was cut. */
export function graphText(graph: Graph): string {
  const notes = cutNotes(graph);
  if (notes.length === 0) return json({ entities: graph.entities.map(plainEntity), relations: graph.relations.map(plainRelation) });
  return json({ note: notes.join(" "), ...relationFields(graph), entities: graph.entities.map(textEntity), relations: graph.relations.map(plainRelation) });
}

/** read_graph / search_nodes: the reference text, plus a note when the answer is only part of the result. */
export function pageText(tool: "read_graph" | "search_nodes", page: GraphPage): string {
  const notes = cutNotes(page);
  if (page.offset === 0 && !page.truncated && notes.length === 0) return graphText(page);
  const shown = page.entities.length;
  // A capped count (search_nodes) is a floor: the page itself may lie past it.
  const total = page.totalEntitiesIsLowerBound ? `at least ${Math.max(page.totalEntities, page.offset + shown)}` : `${page.totalEntities}`;
  const range = shown > 0 ? `entities ${page.offset + 1}-${page.offset + shown} of ${total}` : `no entities (offset ${page.offset}, total ${total})`;
  const why = page.scanCut
    ? `because the search stopped after testing its share of the scope's entities and their observations one by one (GRAPH_SEARCH_SCAN_MAX); more may match`
    : shown < page.limit
      ? "cut to keep the answer small"
      : `cut at limit ${page.limit} to keep it small`;
  const next =
    page.nextOffset !== undefined
      ? `with the same arguments and offset ${page.nextOffset}`
      : `with the same arguments and cursor ${JSON.stringify(page.nextCursor)} instead of offset`;
  const entityNote = page.truncated
    ? `This answer holds ${range}, ${why}. For the next page call ${tool} again ${next}. Relations listed are those touching the entities shown.`
    : page.offset > 0
      ? `This answer holds ${range}: the last page. Relations listed are those touching the entities shown` +
        (tool === "read_graph" ? " and those whose endpoints both do not exist." : ".")
      : undefined;
  return json({
    note: [entityNote, ...notes].filter(Boolean).join(" "),
    totalEntities: page.totalEntities,
    ...(page.totalEntitiesIsLowerBound ? { totalEntitiesIsLowerBound: true } : {}),
    truncated: page.truncated,
    ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    ...(page.scanCut ? { scanCut: true } : {}),
    ...relationFields(page),
    entities: page.entities.map(textEntity),
    relations: page.relations.map(plainRelation),
  });
}

export function relationPageText(page: RelationPage): string {
  const shown = page.relations.length;
  const total = page.totalRelationsIsLowerBound ? `at least ${page.totalRelations}` : `${page.totalRelations}`;
  const range = shown > 0 ? `relations ${page.offset + 1}-${page.offset + shown} of ${total}` : `no relations (offset ${page.offset}, total ${total})`;
  const why = page.scanCut ? `, because the walk stopped after testing its share of the scope's relations (GRAPH_SEARCH_SCAN_MAX); more may match` : "";
  const next =
    page.nextOffset !== undefined
      ? `with the same arguments and offset ${page.nextOffset}`
      : `with the same arguments and cursor ${JSON.stringify(page.nextCursor)} instead of offset`;
  const note = page.truncated ? `This answer holds ${range}${why}. For the next page call read_relations again ${next}.` : undefined;
  return json({
    ...(note ? { note } : {}),
    totalRelations: page.totalRelations,
    ...(page.totalRelationsIsLowerBound ? { totalRelationsIsLowerBound: true } : {}),
    offset: page.offset,
    truncated: page.truncated,
    ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    ...(page.scanCut ? { scanCut: true } : {}),
    relations: page.relations.map(plainRelation),
  });
}

export function observationPageText(page: ObservationPage): string {
  const shown = page.observations.length;
  const note = page.truncated
    ? `This answer holds observations ${page.offset + 1}-${page.offset + shown} of ${page.totalObservations} of ${JSON.stringify(page.name)}. ` +
      `For the next page call read_observations again with the same arguments and offset ${page.nextOffset}.`
    : undefined;
  return json({
    ...(note ? { note } : {}),
    name: page.name,
    entityType: page.entityType,
    totalObservations: page.totalObservations,
    offset: page.offset,
    truncated: page.truncated,
    ...(page.nextOffset !== undefined ? { nextOffset: page.nextOffset } : {}),
    observations: page.observations,
  });
}
