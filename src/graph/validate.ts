// Input checks that the reference server does not make, with messages naming the
// field: every call is checked whole before anything is written, so a bad item
// fails the call and nothing of it is stored.
import { SHARED_SCOPE, validateScope } from "../auth/scopes.js";
import { invalid } from "../errors.js";
import { isStorable } from "../text.js";
import type { EntityInput, ObservationInput, RelationInput } from "./types.js";

import {
  checkChars,
  countTrigrams,
  DEFAULT_PAGE_LIMIT,
  MAX_CHARS_PER_CALL,
  MAX_ITEMS_PER_CALL,
  MAX_OFFSET,
  MAX_PAGE_LIMIT,
  MAX_SEARCH_QUERY_CHARS,
  MAX_SEARCH_TRIGRAMS,
  MAX_TEXTS_PER_CALL,
} from "../limits.js";

export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT };

/** The scope a graph call names, "shared" when omitted. */
export function resolveScope(scope: string | undefined): string {
  return validateScope(scope ?? SHARED_SCOPE);
}

export function validateItemCount(field: string, count: number): void {
  if (count > MAX_ITEMS_PER_CALL) {
    throw invalid(`${field} has ${count} items; at most ${MAX_ITEMS_PER_CALL} are accepted per call. Split it into several calls. Nothing was written.`);
  }
}

export function validateTextCount(field: string, count: number, max = MAX_TEXTS_PER_CALL): void {
  if (count > max) {
    throw invalid(`${field} carry ${count} texts in total; at most ${max} are accepted per call. Split it into several calls. Nothing was written.`);
  }
}

/** The characters of a whole call (all its texts together), so no combination of counts and lengths adds up to an unbounded request. */
export function validateCallChars(field: string, texts: Iterable<string>, max = MAX_CHARS_PER_CALL): void {
  let total = 0;
  for (const t of texts) total += t.length;
  if (total > max) {
    throw invalid(`${field} carry ${total} characters in total; at most ${max} are accepted per call (GRAPH_CALL_MAX_CHARS). Split it into several calls. Nothing was written.`);
  }
}

/**
 * search_nodes' query: bounded in characters and in distinct trigrams (the
 * index lookups it costs), before any SQL runs.
 */
export function validateSearchQuery(query: string): void {
  checkChars("query", query, MAX_SEARCH_QUERY_CHARS, { long: true, advice: "Search for a distinctive part: a name, a word or a short phrase." });
  const trigrams = countTrigrams([query], MAX_SEARCH_TRIGRAMS);
  if (trigrams > MAX_SEARCH_TRIGRAMS) {
    throw invalid(`query has more than ${MAX_SEARCH_TRIGRAMS} distinct trigrams (three-letter pieces the search index looks up); that is the limit. Search for a shorter phrase.`);
  }
}

/** Checks one text: length in characters (as Postgres counts them), storable, non-empty where required. */
export function validateText(field: string, value: string, maxChars: number, allowEmpty: boolean): void {
  if (!allowEmpty && value.length === 0) {
    throw invalid(`${field} is empty; give it a name of at least one character. Nothing was written.`);
  }
  checkChars(field, value, maxChars, { long: true, key: "GRAPH_TEXT_MAX_CHARS", advice: "Shorten it, or split a long observation into several. Nothing was written." });
  if (!isStorable(value)) throw invalid(`${field} contains a NUL character or an unpaired UTF-16 surrogate (broken text encoding), which cannot be stored. Nothing was written.`);
}

export function validateEntities(entities: EntityInput[], maxChars: number, maxCallChars = MAX_CHARS_PER_CALL, maxCallTexts = MAX_TEXTS_PER_CALL): void {
  validateItemCount("entities", entities.length);
  validateTextCount("entities' observations", entities.reduce((n, e) => n + e.observations.length, 0), maxCallTexts);
  entities.forEach((e, i) => {
    validateText(`entities[${i}].name`, e.name, maxChars, false);
    validateText(`entities[${i}].entityType`, e.entityType, maxChars, true);
    e.observations.forEach((o, j) => validateText(`entities[${i}].observations[${j}]`, o, maxChars, true));
  });
  validateCallChars("entities", entities.flatMap((e) => [e.name, e.entityType, ...e.observations]), maxCallChars);
}

export function validateRelations(relations: RelationInput[], maxChars: number, field = "relations", maxCallChars = MAX_CHARS_PER_CALL): void {
  validateItemCount(field, relations.length);
  relations.forEach((r, i) => {
    validateText(`${field}[${i}].from`, r.from, maxChars, false);
    validateText(`${field}[${i}].to`, r.to, maxChars, false);
    validateText(`${field}[${i}].relationType`, r.relationType, maxChars, true);
  });
  validateCallChars(field, relations.flatMap((r) => [r.from, r.to, r.relationType]), maxCallChars);
}

export function validateObservations(items: ObservationInput[], maxChars: number, maxCallChars = MAX_CHARS_PER_CALL, maxCallTexts = MAX_TEXTS_PER_CALL): void {
  validateItemCount("observations", items.length);
  validateTextCount("observations' contents", items.reduce((n, o) => n + o.contents.length, 0), maxCallTexts);
  items.forEach((o, i) => o.contents.forEach((c, j) => validateText(`observations[${i}].contents[${j}]`, c, maxChars, true)));
  validateCallChars("observations", items.flatMap((o) => [o.entityName, ...o.contents]), maxCallChars);
}


export function pageBounds(page: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const offset = page.offset ?? 0;
  if (offset > MAX_OFFSET) {
    throw invalid(`offset ${offset} is past the limit of ${MAX_OFFSET}: skipping costs a read of every item skipped. Narrow the request (search_nodes, open_nodes), or export the whole graph with the CLI (agent-memory export).`);
  }
  return { limit: page.limit ?? DEFAULT_PAGE_LIMIT, offset };
}
