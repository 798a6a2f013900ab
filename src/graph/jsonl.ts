// The reference server's file format (memory.jsonl; older versions called it
// memory.json): one JSON object per line, {"type":"entity",name,entityType,
// observations} or {"type":"relation",from,to,relationType}, entities first,
// lines joined by "\n" with no newline at the end.
// A whole export (src/snapshots) adds who wrote each row and when, in the
// fields open_nodes answers with (createdBy, createdAt, observationsMeta),
// after the reference's own: the reference ignores them, an import restores them.
import { DomainError } from "../errors.js";
import type { EntityInput, Provenance, RelationInput } from "./types.js";
import { validateText } from "./validate.js";

interface EntityProvenance extends Provenance {
  /** Each observation's, index-aligned with the entity's observations. */
  observationsMeta: Provenance[];
}

type GraphLine =
  | { kind: "entity"; entity: EntityInput; provenance?: EntityProvenance | undefined }
  | { kind: "relation"; relation: RelationInput; provenance?: Provenance | undefined };

export const entityLine = (e: EntityInput, provenance?: EntityProvenance): string =>
  JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations, ...provenance });
export const relationLine = (r: RelationInput, provenance?: Provenance): string =>
  JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType, ...provenance });

const isString = (v: unknown): v is string => typeof v === "string";

/** ISO 8601 UTC with milliseconds, as an export writes times. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A line's createdBy/createdAt, when it has them (both or neither). */
function provenanceOf(o: Record<string, unknown>, what: string): Provenance | undefined {
  if (o.createdBy === undefined && o.createdAt === undefined) return undefined;
  if (!isString(o.createdBy) || o.createdBy === "") throw new Error(`${what}"createdBy" must be an agent's name`);
  if (!isString(o.createdAt) || !ISO_MS.test(o.createdAt) || Number.isNaN(Date.parse(o.createdAt))) {
    throw new Error(`${what}"createdAt" must be a time like 2026-01-31T12:00:00.000Z`);
  }
  return { createdBy: o.createdBy, createdAt: o.createdAt };
}

function entityProvenance(o: Record<string, unknown>, observations: number): EntityProvenance | undefined {
  const own = provenanceOf(o, "");
  if (!own) {
    if (o.observationsMeta !== undefined) throw new Error('"observationsMeta" needs "createdBy" and "createdAt"');
    return undefined;
  }
  const meta = o.observationsMeta ?? [];
  if (!Array.isArray(meta) || meta.length !== observations) throw new Error('"observationsMeta" must hold one {createdBy, createdAt} per observation');
  return {
    ...own,
    observationsMeta: meta.map((m, i) => {
      if (!m || typeof m !== "object" || Array.isArray(m)) throw new Error(`observationsMeta[${i}] must be an object`);
      const p = provenanceOf(m as Record<string, unknown>, `observationsMeta[${i}]: `);
      if (!p) throw new Error(`observationsMeta[${i}] needs "createdBy" and "createdAt"`);
      return p;
    }),
  };
}

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
      const provenance = entityProvenance(o, observations.length);
      return { kind: "entity", entity: { name: o.name, entityType: o.entityType, observations }, provenance };
    }
    if (o.type === "relation") {
      if (!isString(o.from) || !isString(o.to) || !isString(o.relationType)) throw new Error('"from", "to" and "relationType" must be strings');
      validateText("from", o.from, maxChars, false);
      validateText("to", o.to, maxChars, false);
      validateText("relationType", o.relationType, maxChars, true);
      return { kind: "relation", relation: { from: o.from, to: o.to, relationType: o.relationType }, provenance: provenanceOf(o, "") };
    }
  } catch (error) {
    // The validators' messages end with advice for tool callers; a file line only needs the reason.
    if (error instanceof DomainError) throw new Error(error.message.replace(/ Nothing was written\.$/, "").replace(/ Shorten it.*$/, ""));
    throw error;
  }
  throw new Error(`"type" must be "entity" or "relation", got ${JSON.stringify(o.type ?? null)}`);
}
