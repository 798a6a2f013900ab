// Input checks that the reference server does not make, with messages naming the
// field: every call is checked whole before anything is written, so a bad item
// fails the call and nothing of it is stored.
import { SHARED_SCOPE, validateScope } from "../auth/scopes.js";
import { invalid } from "../errors.js";
import { charCount, isStorable } from "../text.js";
import type { EntityInput, ObservationInput, RelationInput } from "./types.js";

/** Items (entities, relations, names, …) one call may carry. */
export const MAX_ITEMS_PER_CALL = 1000;
/** Texts in one call across all items (observations of many entities). */
export const MAX_TEXTS_PER_CALL = 10_000;
/** read_graph / search_nodes: entities per answer unless `limit` says otherwise. */
export const DEFAULT_PAGE_LIMIT = 1000;
export const MAX_PAGE_LIMIT = 5000;

/** The scope a graph call names, "shared" when omitted. */
export function resolveScope(scope: string | undefined): string {
  return validateScope(scope ?? SHARED_SCOPE);
}

export function checkItemCount(field: string, count: number): void {
  if (count > MAX_ITEMS_PER_CALL) {
    throw invalid(`${field} has ${count} items; at most ${MAX_ITEMS_PER_CALL} are accepted per call. Split it into several calls. Nothing was written.`);
  }
}

function checkTextCount(field: string, count: number): void {
  if (count > MAX_TEXTS_PER_CALL) {
    throw invalid(`${field} carry ${count} texts in total; at most ${MAX_TEXTS_PER_CALL} are accepted per call. Split it into several calls. Nothing was written.`);
  }
}


/** Checks one text: length in characters (as Postgres counts them), storable, non-empty where required. */
export function checkText(field: string, value: string, maxChars: number, allowEmpty: boolean): void {
  if (!allowEmpty && value.length === 0) {
    throw invalid(`${field} is empty; give it a name of at least one character. Nothing was written.`);
  }
  // UTF-16 length bounds the character count from above: only long strings need counting.
  if (value.length > maxChars && charCount(value, maxChars) > maxChars) {
    throw invalid(
      `${field} is ${charCount(value)} characters long; the limit is ${maxChars} (GRAPH_TEXT_MAX_CHARS). ` +
        `Shorten it, or split a long observation into several. Nothing was written.`,
    );
  }
  if (!isStorable(value)) throw invalid(`${field} contains a NUL character or an unpaired UTF-16 surrogate (broken text encoding), which cannot be stored. Nothing was written.`);
}

export function validateEntities(entities: EntityInput[], maxChars: number): void {
  checkItemCount("entities", entities.length);
  checkTextCount("entities' observations", entities.reduce((n, e) => n + e.observations.length, 0));
  entities.forEach((e, i) => {
    checkText(`entities[${i}].name`, e.name, maxChars, false);
    checkText(`entities[${i}].entityType`, e.entityType, maxChars, true);
    e.observations.forEach((o, j) => checkText(`entities[${i}].observations[${j}]`, o, maxChars, true));
  });
}

export function validateRelations(relations: RelationInput[], maxChars: number, field = "relations"): void {
  checkItemCount(field, relations.length);
  relations.forEach((r, i) => {
    checkText(`${field}[${i}].from`, r.from, maxChars, false);
    checkText(`${field}[${i}].to`, r.to, maxChars, false);
    checkText(`${field}[${i}].relationType`, r.relationType, maxChars, true);
  });
}

export function validateObservations(items: ObservationInput[], maxChars: number): void {
  checkItemCount("observations", items.length);
  checkTextCount("observations' contents", items.reduce((n, o) => n + o.contents.length, 0));
  items.forEach((o, i) => o.contents.forEach((c, j) => checkText(`observations[${i}].contents[${j}]`, c, maxChars, true)));
}

/** Escapes LIKE metacharacters so the query matches as a plain substring. */
export function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function pageBounds(page: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: page.limit ?? DEFAULT_PAGE_LIMIT, offset: page.offset ?? 0 };
}
