// The graph as callers see it. The first three shapes are exactly those of the
// reference server (@modelcontextprotocol/server-memory); the optional fields
// are ours (provenance, paging) and old clients ignore them.

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
}

export interface GraphRelation extends RelationInput, Partial<Provenance> {}

export interface Graph {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

/** A bounded answer of read_graph or search_nodes. */
export interface GraphPage extends Graph {
  /** Entities in the scope (read_graph) or matching the query (search_nodes). */
  totalEntities: number;
  offset: number;
  limit: number;
  /** True when entities beyond this page exist. */
  truncated: boolean;
  /** The offset of the next page, when truncated. */
  nextOffset?: number;
}

/** Where a write goes and who makes it. */
export interface GraphWriter {
  scope: string;
  agentId: number;
  /** GRAPH_TEXT_MAX_CHARS: the longest name, type or observation accepted. */
  maxChars: number;
}

export interface PageRequest {
  limit?: number;
  offset?: number;
}
