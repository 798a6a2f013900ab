// How big one graph read may answer. Entity pages (`limit`) alone did not bound
// an answer: relations need no existing endpoints, so one entity can carry any
// number of them, and an entity any number of observations. Every read is
// therefore cut at a character budget (GRAPH_ANSWER_MAX_CHARS), computed in SQL
// so Postgres never ships the unbounded set, and the answer says what was cut
// and which call returns the rest (read_relations, read_observations).
//
// An item's size is its characters plus the framing it gets in the answer's
// JSON text (am_graph_frame, sql/functions/am_graph_frame.sql). Escapes are not
// counted, so the text stays within a small factor of the budget even for text
// full of quotes or control characters.
//
// At the end of the file, the other bounds: how much one read may count and
// walk (ReadBounds).

/** Where the budget of one read_graph / search_nodes / open_nodes answer goes. */
interface AnswerBudget {
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

