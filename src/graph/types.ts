// The graph as callers see it. The first three shapes are exactly those of the
// reference server (@modelcontextprotocol/server-memory); the optional fields
// are ours (provenance, paging) and old clients ignore them.

import type { SecretGuard } from "../secrets/guard.js";

export interface EntityInput {
  name: string;
  entityType: string;
  observations: string[];
}

export interface RelationInput {
  from: string;
  to: string;
  relationType: string;
}

export interface ObservationInput {
  entityName: string;
  contents: string[];
}

export interface ObservationDeletion {
  entityName: string;
  observations: string[];
}

export interface AddedObservations {
  entityName: string;
  addedObservations: string[];
}

/** Who wrote a row and when (ISO 8601). */
export interface Provenance {
  createdBy: string;
  createdAt: string;
}

export interface GraphEntity extends EntityInput, Partial<Provenance> {
  /** Provenance of each observation, index-aligned with `observations` (open_nodes only). */
  observationsMeta?: Provenance[];
  /** Only when the answer holds just the first observations (read_observations has the rest). */
  observationsTruncated?: true;
  /** Only with observationsTruncated: how many the entity has. */
  totalObservations?: number;
}

export interface GraphRelation extends RelationInput, Partial<Provenance> {}

/** read_relations' arguments: relations touching `names` (all when omitted), from `offset`. */
export interface RelationsRequest {
  scope: string;
  /** Relations with at least one endpoint among these names; omitted: every relation of the scope. */
  names?: string[];
  /** With names: also the relations neither of whose endpoints is an existing entity. */
  unattached?: boolean;
  /** Where the rest starts: an offset, or (after a walk cut at its bound) a cursor. */
  offset?: number;
  cursor?: string;
}

/** Present only when an answer's relations were cut to keep it bounded. */
export interface RelationsCut {
  relationsTruncated?: true;
  /** How many relations the answer would list uncut. */
  totalRelations?: number;
  /** Only when counting stopped at its bound: at least totalRelations relations. */
  totalRelationsIsLowerBound?: true;
  /** read_relations with these arguments returns the rest. */
  nextRelations?: RelationsRequest;
}

export interface Graph extends RelationsCut {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

/** A bounded answer of read_graph or search_nodes. */
export interface GraphPage extends Graph {
  /** Entities in the scope (read_graph) or matching the query (search_nodes); see totalEntitiesIsLowerBound. */
  totalEntities: number;
  /** Only when counting stopped at the cap (GRAPH_SEARCH_COUNT_MAX): at least totalEntities entities match. */
  totalEntitiesIsLowerBound?: true;
  offset: number;
  limit: number;
  /** True when entities beyond this page exist. */
  truncated: boolean;
  /** The offset of the next page, when truncated and paging by offset still reaches it cheaply. */
  nextOffset?: number;
  /** search_nodes: pass as cursor to get the next page (when truncated). */
  nextCursor?: string;
  /** search_nodes: the walk stopped at its bound (GRAPH_SEARCH_SCAN_MAX) before the page was complete. */
  scanCut?: true;
}

/** Where a write goes and who makes it. */
export interface GraphWriter {
  scope: string;
  agentId: number;
  /** GRAPH_TEXT_MAX_CHARS: the longest name, type or observation accepted. */
  maxChars: number;
  /** GRAPH_CALL_MAX_CHARS: the most characters one write call carries (default MAX_CHARS_PER_CALL). */
  maxCallChars?: number;
  /** The most texts (observations) one write call carries (default MAX_TEXTS_PER_CALL). */
  maxCallTexts?: number;
  /** The secret guard every text written passes (default: refusing, uncounted). */
  secrets?: SecretGuard;
}

export interface PageRequest {
  limit?: number;
  offset?: number;
}

/** search_nodes: a page by offset, or after a cursor (nextCursor of an earlier page). */
export interface SearchPageRequest extends PageRequest {
  cursor?: string | undefined;
}

/** read_relations: a page of relations. */
export interface RelationPage {
  relations: GraphRelation[];
  totalRelations: number;
  /** Only when counting stopped at the cap or the walk at its bound: at least totalRelations. */
  totalRelationsIsLowerBound?: true;
  offset: number;
  limit: number;
  truncated: boolean;
  nextOffset?: number;
  nextCursor?: string;
  /** The walk stopped at its bound (GRAPH_SEARCH_SCAN_MAX) before the page was complete. */
  scanCut?: true;
}

/** read_observations: a page of one entity's observations, with provenance. */
export interface ObservationPage {
  name: string;
  entityType: string;
  observations: string[];
  observationsMeta: Provenance[];
  totalObservations: number;
  offset: number;
  limit: number;
  truncated: boolean;
  nextOffset?: number;
}
