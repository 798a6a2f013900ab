// search_nodes: entities whose name, type or observations contain a substring,
// through the trigram indexes or, where they cannot narrow the search (or may
// not: a large scope on the embedded database), by a walk bounded per call
// whose cursor goes on. Shares the entity rows and the relations' cut with the
// other reads (read.ts).
import * as z from "zod/v4";
import type { Database } from "../db/core/database.js";
import { invalid } from "../errors.js";
import { MAX_OFFSET } from "../limits.js";
import { cursorKey } from "../db/sql/cursor-key.js";
import { openSealedCursor, sealCursor } from "../paging.js";
import { GRAPH_SEARCH_SCAN_MAX } from "../limits.js";
import { answerBudget } from "./bounds.js";
import { prepared } from "./prepared.js";
import { type EntityRow, finishEntity, relationsCut } from "./read.js";
import * as sql from "./read-sql.js";
import type { GraphPage, GraphRelation, SearchPageRequest } from "./types.js";
import { likePattern } from "../text.js";
import { pageBounds, validateSearchQuery } from "./validate.js";

/**
 * Three letters or digits in a row: a trigram of the query itself, which the
 * indexes can look up (am_graph_search); a query with one goes through them.
 * Without one ("---", "...", "a.b", "x-o") pg_trgm finds no trigram in '%…%',
 * or only padded ones ("  o": every word that starts with o), and the lists
 * would test the whole scope's names, types and observations in one call, past
 * GRAPH_SEARCH_SCAN_MAX ("---" over 50,000 entities: 80 ms on Postgres, 172 ms
 * embedded, against 23 / 44 ms for the bounded walk). Such a query is walked,
 * like one of one or two Latin letters or digits. (One of one or two Chinese,
 * Japanese or Korean characters goes through the indexes of the texts' pieces
 * instead: am_graph_search decides, by am_cjk_grams.)
 * Letters and digits as countTrigrams (limits.ts) counts pg_trgm's words.
 */
const OWN_TRIGRAM = /[\p{L}\p{N}]{3}/u;

/**
 * search_nodes' cursor: the entity id the next page starts after, how many
 * matches past it to skip first, and how many matches lie up to it (`seen`:
 * the page's place among all matches, for its numbering and the total). With
 * `obs`, a walk stopped inside entity `after` (its name, type and observations
 * up to id `obs` tested, none matching): the next page starts inside it.
 */
const SearchCursor = z.object({
  // Which list the cursor belongs to: a read_relations cursor is refused here.
  k: z.literal("s"),
  after: z.number().int().min(0),
  obs: z.number().int().min(1).optional(),
  skip: z.number().int().min(0).max(MAX_OFFSET),
  seen: z.number().int().min(0).max(2_147_483_647),
});


/**
 * Entities whose name, type or any observation contains `query`, case-insensitive
 * (an empty query matches every entity, as in the reference), with the relations
 * that have at least one endpoint among the entities returned. One statement.
 * Matches are counted exactly up to `countCap`; past it the answer says "at
 * least countCap" (totalEntitiesIsLowerBound), so the work stays bounded however
 * many entities match (am_graph_search). A query of one or two Chinese,
 * Japanese or Korean characters is looked up among the texts' pieces
 * (am_cjk_grams). Where the indexes cannot narrow the search (a common query,
 * one of one or two other characters), or may not (on the
 * embedded database, a scope of more than one call's walk), the scope is walked
 * entity by entity, at most `scanMax` of them and twice as many observations
 * per call: a page cut short there says so (scanCut), and its nextCursor
 * resumes the walk where it stopped, inside an entity if need be.
 * Pages come by `offset` or after a `cursor` (an earlier page's nextCursor).
 */
export async function searchNodes(
  db: Database,
  scope: string,
  query: string,
  request: SearchPageRequest,
  maxChars: number,
  countCap: number,
  scanMax = GRAPH_SEARCH_SCAN_MAX,
  /** Walk a scope larger than one call's walk whatever the query: the embedded database's way (am_graph_search). */
  walkLargeScopes = db.kind === "pglite",
): Promise<GraphPage> {
  validateSearchQuery(query);
  const { limit, offset } = pageBounds(request);
  const key = await cursorKey(db);
  const cursor = openSealedCursor(key, request.cursor, SearchCursor);
  if (cursor && offset !== 0) {
    throw invalid("Pass either offset or cursor, not both: a cursor (nextCursor of the previous page) already says where the next page starts.");
  }
  const after = cursor?.after ?? 0;
  const afterObservation = cursor?.obs ?? 0;
  const skip = cursor?.skip ?? offset;
  // Matches up to `after`: this page starts at match seen + skip.
  const seen = cursor?.seen ?? 0;
  const budget = answerBudget(maxChars);
  type Row = {
    total: number;
    matched: number;
    complete: boolean;
    walkedTo: number | null;
    walkedObs: number | null;
    lastId: number | null;
    entities: EntityRow[];
    relations: GraphRelation[];
    totalRelations: number;
    relationsCountCap: number;
  };
  const params = [scope, likePattern(query), limit, skip, budget.entityChars, budget.relationChars, countCap, after, scanMax, afterObservation, OWN_TRIGRAM.test(query), walkLargeScopes];
  const row = (await db.query<{ r: Row }>(sql.GRAPH_SEARCH, params, prepared("search"))).rows[0]!.r;
  const entities = row.entities.map((e) => finishEntity(e));
  const cut = relationsCut(row.relations.length, row.totalRelations, row.relationsCountCap, { scope, names: entities.map((e) => e.name) });
  const shown = entities.length;
  // Matches found past this page: the next one starts after its last entity.
  // Otherwise, a walk stopped at its bound goes on where it stopped: after the
  // last entity it tested, or inside it after the last observation tested.
  const nextCursor =
    row.matched > skip + shown && row.lastId !== null
      ? sealCursor(key, { k: "s", after: row.lastId, skip: 0, seen: seen + skip + shown })
      : row.walkedTo !== null
        ? sealCursor(key, {
            k: "s",
            after: row.walkedTo,
            ...(row.walkedObs !== null ? { obs: row.walkedObs } : {}),
            skip: Math.max(0, skip - row.matched),
            seen: seen + row.matched,
          })
        : undefined;
  const scanCut = row.walkedTo !== null && row.matched <= skip + shown;
  // After a cursor the statement counts only past it (the lists count the whole scope).
  const total = Math.max(row.total, seen + row.matched);
  // Exact when the lists held every match, or the walk went through the whole scope from its start.
  const lowerBound = total > countCap || row.walkedTo !== null || (!row.complete && after > 0);
  return {
    entities,
    relations: row.relations,
    ...cut,
    totalEntities: Math.min(total, countCap),
    ...(lowerBound ? { totalEntitiesIsLowerBound: true as const } : {}),
    offset: seen + skip,
    limit,
    truncated: nextCursor !== undefined,
    // An offset restarts the search from the scope's first match: given only to
    // pages asked for by offset, and not past a cut walk (the cursor goes on from there).
    ...(nextCursor !== undefined && !cursor && !scanCut ? { nextOffset: offset + shown } : {}),
    ...(nextCursor !== undefined ? { nextCursor } : {}),
    ...(scanCut ? { scanCut: true as const } : {}),
  };
}
