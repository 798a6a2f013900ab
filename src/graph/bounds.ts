// How big one graph read may answer. Entity pages (`limit`) alone did not bound
// an answer: relations need no existing endpoints, so one entity can carry any
// number of them, and an entity any number of observations. Every read is
// therefore cut at a character budget (GRAPH_ANSWER_MAX_CHARS), computed in SQL
// so Postgres never ships the unbounded set, and the answer says what was cut
// and which call returns the rest (read_relations, read_observations).
//
// An item's size is its characters plus the framing it gets in the answer's
// JSON text (JSON.stringify(…, null, 2) of the reference's shapes: indentation,
// keys, quotes). Escapes are not counted, so the text stays within a small
// factor of the budget even for text full of quotes or control characters.
//
// At the end of the file, the other bounds: how much one read may count and
// walk (ReadBounds).

/** `    {\n      "name": "",\n      "entityType": "",\n      "observations": [\n      ]\n    },\n` (87) */
export const ENTITY_FRAME_CHARS = 90;
/** `        "",\n` */
export const OBSERVATION_FRAME_CHARS = 12;
/** `    {\n      "from": "",\n      "to": "",\n      "relationType": ""\n    },\n` (72) */
export const RELATION_FRAME_CHARS = 75;

/** Where the budget of one read_graph / search_nodes / open_nodes answer goes. */
export interface AnswerBudget {
  /** Entities with their observations. */
  entityChars: number;
  /** Relations. A part of its own, so a page full of entities still makes progress on its relations. */
  relationChars: number;
}

/** Half for entities and observations, half for relations. */
export function answerBudget(maxChars: number): AnswerBudget {
  const half = Math.floor(maxChars / 2);
  return { entityChars: half, relationChars: half };
}

/**
 * How much one graph read may do whatever the scope holds: counts are exact up
 * to `countCap` (GRAPH_SEARCH_COUNT_MAX) and "at least" past it; a walk tests
 * at most `scanMax` rows (GRAPH_SEARCH_SCAN_MAX) and hands out a cursor.
 */
export interface ReadBounds {
  countCap?: number | undefined;
  scanMax?: number | undefined;
}

/** GRAPH_SEARCH_COUNT_MAX's default: what a read counts exactly at most. */
export const COUNT_CAP_DEFAULT = 10_000;
/** GRAPH_SEARCH_SCAN_MAX's default: entities a search tests one by one per call at most (and twice as many observations). */
export const SEARCH_SCAN_MAX_DEFAULT = 10_000;

/**
 * How far the reads count an entity's observations (read-sql.ts, entityPart):
 * the count cap, or one more than an answer of `entityChars` could show, if
 * that is more, so that a count that stopped is always more than was shown.
 */
export const observationCountCap = (countCap: number, entityChars: number) => Math.max(countCap, Math.floor(entityChars / OBSERVATION_FRAME_CHARS) + 1);
/** The same for the relations of the entities shown (keptRelationsTotal). */
export const relationCountCap = (countCap: number, relationChars: number) => Math.max(countCap, Math.floor(relationChars / RELATION_FRAME_CHARS) + 1);
