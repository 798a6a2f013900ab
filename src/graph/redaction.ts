// Redaction in the graph: a human with write access to the scope removes an
// entity (its name, type, observations and the relations touching it) or one
// of its observations for good. Unlike delete_*, the removed text is not kept
// in graph_deletions, and earlier deletion records holding it are blanked; a
// tombstone (graph_redactions) keeps who removed what kind of text from which
// entity id, when and why, without the text.
import type { Caller } from "../auth/caller.js";
import { assertMayRedact } from "../auth/scopes.js";
import type { Database } from "../db/database.js";
import { invalid, notFound } from "../errors.js";
import { resolveScope } from "./validate.js";

const REDACTED_TEXT = "[redacted]";
const REASON_MAX_CHARS = 2000;

export interface GraphRedaction {
  scope: string;
  entityId: number;
  kind: "entity" | "observation";
  /** What went: observations, relations (an entity's), 1 observation. */
  removed: { observations: number; relations: number };
  by: string;
  at: string;
  reason: string;
}

const LOCK_ENTITY = `select id, name from graph_entities where scope = $1::text and am_graph_key(name) = am_graph_key($2::text) for update`;
const NTH_OBSERVATION = `select id, content from graph_observations where entity_id = $1::bigint order by id offset $2::int limit 1`;
const ALL_OBSERVATIONS = `select content from graph_observations where entity_id = $1::bigint`;
const DELETE_OBSERVATION = `delete from graph_observations where id = $1::bigint`;
const DELETE_RELATIONS = `
  delete from graph_relations where scope = $1::text
     and (am_graph_key(from_name) = am_graph_key($2::text) or am_graph_key(to_name) = am_graph_key($2::text))`;
const DELETE_ENTITY = `delete from graph_entities where id = $1::bigint`;
// Earlier delete_* records that hold the text: the name as subject, an
// observation or a relation's "type → name" as detail.
const BLANK_DELETIONS = `
  update graph_deletions set subject = case when subject = any($2::text[]) then $3::text else subject end,
                             detail = $3::text
   where scope = $1::text and (subject = any($2::text[]) or detail = any($2::text[]) or ($4::text is not null and right(detail, char_length($4::text) + 3) = ' → ' || $4::text))`;
const TOMBSTONE = `
  insert into graph_redactions (scope, entity_id, kind, redacted_by, reason) values ($1::text, $2::bigint, $3::text, $4::bigint, $5::text)
  returning redacted_at`;

export async function redactGraph(
  db: Database,
  caller: Caller,
  input: { scope?: string; entity: string; observation?: number | undefined; reason: string },
): Promise<GraphRedaction> {
  const scope = resolveScope(input.scope);
  const reason = input.reason.trim();
  if (reason === "" || [...reason].length > REASON_MAX_CHARS) throw invalid(`reason must be 1 to ${REASON_MAX_CHARS} characters: say why the text must go (the tombstone keeps it).`);
  assertMayRedact(caller, scope);
  if (input.observation !== undefined && (!Number.isInteger(input.observation) || input.observation < 1)) {
    throw invalid(`observation must be a position of 1 or more (the first observation open_nodes lists is 1), got ${input.observation}.`);
  }
  return db.transaction(async (tx) => {
    const entity = (await tx.query<{ id: number; name: string }>(LOCK_ENTITY, [scope, input.entity])).rows[0];
    if (!entity) throw notFound(`No entity named "${input.entity}" in scope "${scope}" to redact.`);
    let removed = { observations: 0, relations: 0 };
    let texts: string[];
    if (input.observation !== undefined) {
      const obs = (await tx.query<{ id: number; content: string }>(NTH_OBSERVATION, [entity.id, input.observation - 1])).rows[0];
      if (!obs) throw notFound(`"${entity.name}" in scope "${scope}" has fewer than ${input.observation} observations.`);
      await tx.query(DELETE_OBSERVATION, [obs.id]);
      removed = { observations: 1, relations: 0 };
      texts = [obs.content];
    } else {
      const observations = (await tx.query<{ content: string }>(ALL_OBSERVATIONS, [entity.id])).rows.map((r) => r.content);
      const relations = (await tx.query(DELETE_RELATIONS, [scope, entity.name])).rowCount ?? 0;
      await tx.query(DELETE_ENTITY, [entity.id]);
      removed = { observations: observations.length, relations };
      texts = [entity.name, ...observations];
    }
    await tx.query(BLANK_DELETIONS, [scope, texts, REDACTED_TEXT, input.observation === undefined ? entity.name : null]);
    const kind = input.observation === undefined ? "entity" : "observation";
    const at = (await tx.query<{ redacted_at: Date }>(TOMBSTONE, [scope, entity.id, kind, caller.agentId, reason])).rows[0]!.redacted_at;
    return { scope, entityId: entity.id, kind, removed, by: caller.name, at: at.toISOString(), reason };
  });
}
