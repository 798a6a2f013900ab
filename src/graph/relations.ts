// read_relations: a page of relations in insertion order (every relation of a
// scope, those touching some names, or those whose endpoints do not exist),
// by offset or after a sealed cursor, in one statement whose work is bounded
// (relations-sql.ts). read_graph takes its relations from relationsPage too.
import * as z from "zod/v4";
import { cursorKey } from "../db/sql/cursor-key.js";
import type { Queryable } from "../db/core/database.js";
import { invalid } from "../errors.js";
import { MAX_OFFSET } from "../limits.js";
import { openSealedCursor, sealCursor } from "../paging.js";
import { GRAPH_SEARCH_COUNT_MAX, GRAPH_SEARCH_SCAN_MAX } from "../limits.js";
import type { ReadBounds } from "./bounds.js";
import { prepared } from "./prepared.js";
import * as relationsSql from "./relations-sql.js";
import type { GraphRelation, RelationPage, SearchPageRequest } from "./types.js";
import { validateCallChars, validateItemCount, pageBounds } from "./validate.js";

interface RelationsInput extends SearchPageRequest {
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

interface RelationsAt {
  after: number;
  skip: number;
  seen: number;
  limit: number | null;
  budget: number;
  /** The page was asked for by offset (no cursor): nextOffset may continue it. */
  fromStart: boolean;
}

export interface RelationsResult {
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
export async function relationsPage(db: Queryable, scope: string, input: { names?: string[] | undefined; unattached?: boolean | undefined }, at: RelationsAt, bounds: ReadBounds): Promise<RelationsResult> {
  const cap = bounds.countCap ?? GRAPH_SEARCH_COUNT_MAX;
  const every = input.names === undefined && !input.unattached;
  const row = (
    every
      ? await db.query<RelationsRow>(relationsSql.RELATIONS_ALL, [scope, at.after, at.skip, at.limit, at.budget, cap], prepared("relations_all"))
      : await db.query<RelationsRow>(
          relationsSql.RELATIONS_TOUCHING,
          [scope, input.names ?? [], input.unattached ?? false, at.after, at.skip, at.limit, at.budget, cap, bounds.scanMax ?? GRAPH_SEARCH_SCAN_MAX],
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

