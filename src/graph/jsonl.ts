// The reference server's file format (memory.jsonl; older versions called it
// memory.json): one JSON object per line, {"type":"entity",name,entityType,
// observations} or {"type":"relation",from,to,relationType}, entities first,
// lines joined by "\n" with no newline at the end.
import { DomainError } from "../errors.js";
import type { EntityInput, RelationInput } from "./types.js";
import { validateText } from "./validate.js";

export type GraphLine = { kind: "entity"; entity: EntityInput } | { kind: "relation"; relation: RelationInput };

export const entityLine = (e: EntityInput): string => JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations });
export const relationLine = (r: RelationInput): string => JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType });

const isString = (v: unknown): v is string => typeof v === "string";

/** Parses one non-blank line; throws an Error whose message says what is wrong with it. */
export function parseGraphLine(line: string, maxChars: number): GraphLine {
  let item: unknown;
  try {
    item = JSON.parse(line);
  } catch {
    throw new Error("not valid JSON");
  }
  if (!item || typeof item !== "object" || Array.isArray(item)) throw new Error("not a JSON object");
  const o = item as Record<string, unknown>;
  try {
    if (o.type === "entity") {
      if (!isString(o.name)) throw new Error('"name" must be a string');
      if (!isString(o.entityType)) throw new Error('"entityType" must be a string');
      const observations = o.observations ?? [];
      if (!Array.isArray(observations) || !observations.every(isString)) throw new Error('"observations" must be an array of strings');
      validateText("name", o.name, maxChars, false);
      validateText("entityType", o.entityType, maxChars, true);
      observations.forEach((text, i) => validateText(`observations[${i}]`, text, maxChars, true));
      return { kind: "entity", entity: { name: o.name, entityType: o.entityType, observations } };
    }
    if (o.type === "relation") {
      if (!isString(o.from) || !isString(o.to) || !isString(o.relationType)) throw new Error('"from", "to" and "relationType" must be strings');
      validateText("from", o.from, maxChars, false);
      validateText("to", o.to, maxChars, false);
      validateText("relationType", o.relationType, maxChars, true);
      return { kind: "relation", relation: { from: o.from, to: o.to, relationType: o.relationType } };
    }
  } catch (error) {
    // The validators' messages end with advice for tool callers; a file line only needs the reason.
    if (error instanceof DomainError) throw new Error(error.message.replace(/ Nothing was written\.$/, "").replace(/ Shorten it.*$/, ""));
    throw error;
  }
  throw new Error(`"type" must be "entity" or "relation", got ${JSON.stringify(o.type ?? null)}`);
}
