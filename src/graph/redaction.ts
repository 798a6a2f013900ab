// Redaction in the graph: a human with write access to the scope removes an
// entity (its name, type, observations and the relations touching it) or one
// of its observations for good. Unlike delete_*, the removed text is not kept
// in graph_deletions, and earlier deletion records holding it are blanked; a
// tombstone (graph_redactions) keeps who removed what kind of text from which
// entity id, when and why, without the text.
import type { Caller } from "../auth/caller.js";
import { assertMayRedact } from "../auth/scopes.js";
import type { Database } from "../db/core/database.js";
import { because, conflict, invalid, notFound } from "../errors.js";
import { REASON_MAX_CHARS } from "../limits.js";
import { REFUSING_GUARD, type SecretGuard } from "../secrets/guard.js";
import { REDACTED_TEXT } from "../text.js";
import { resolveScope } from "./validate.js";


interface GraphRedaction {
  scope: string;
  entityId: number;
  kind: "entity" | "observation";
  /** What went: observations, relations (an entity's), 1 observation. */
  removed: { observations: number; relations: number };
  by: string;
  at: string;
  reason: string;
}

const LOCK_ENTITY = `select id, name, observation_count from graph_entities where scope = $1::text and am_graph_key(name) = am_graph_key($2::text) for update`;
const DELETE_OBSERVATION = `delete from graph_observations where entity_id = $1::bigint and am_graph_key(content) = am_graph_key($2::text) returning id`;
const DELETE_RELATIONS = `
  delete from graph_relations where scope = $1::text
     and (am_graph_key(from_name) = am_graph_key($2::text) or am_graph_key(to_name) = am_graph_key($2::text))`;
const DELETE_ENTITY = `delete from graph_entities where id = $1::bigint`;
// The delete_* records about the entity: its own (the name as subject, its type
// in the detail), its observations' and its relations' (the name as subject, or
// as the far end at the end of the detail, "type → name"). An observation's
// deletion record never holds its text, so redacting one blanks none.
const BLANK_DELETIONS = `
  update graph_deletions set subject = case when subject = $2::text then $3::text else subject end, detail = $3::text
   where scope = $1::text and (subject = $2::text or (kind = 'relation' and right(detail, char_length($2::text) + 3) = ' → ' || $2::text))`;
const TOMBSTONE = `
  insert into graph_redactions (scope, entity_id, kind, redacted_by, reason) values ($1::text, $2::bigint, $3::text, $4::bigint, $5::text)
  returning redacted_at`;

/**
 * Removes an entity, or one of its observations named by its exact text (an
 * observation's identity: an entity holds each text once). A text that is no
 * longer there is refused, never replaced by another: what a person chose is
 * what goes, or nothing.
 */
export async function redactGraph(
  db: Database,
  caller: Caller,
  input: { scope?: string; entity: string; observation?: string | undefined; reason: string },
  options: { secrets?: SecretGuard } = {},
): Promise<GraphRedaction> {
  const scope = resolveScope(input.scope);
  const reason = input.reason.trim();
  if (reason === "" || [...reason].length > REASON_MAX_CHARS) throw invalid(`reason must be 1 to ${REASON_MAX_CHARS} characters: say why the text must go (the tombstone keeps it).`);
  assertMayRedact(caller, scope);
  if (input.observation !== undefined && input.observation === "") throw invalid("observation is empty: give the exact text of the observation to redact, as open_nodes shows it.");
  // The tombstone's reason is kept for good: it must not hold what is being removed.
  await (options.secrets ?? REFUSING_GUARD).check([["reason", reason]]);
  return db.transaction(async (tx) => {
    const entity = (await tx.query<{ id: number; name: string; observation_count: number }>(LOCK_ENTITY, [scope, input.entity])).rows[0];
    if (!entity) throw notFound(`No entity named "${input.entity}" in scope "${scope}" to redact. It may have been deleted or renamed since you looked; nothing was changed.`);
    let removed = { observations: 0, relations: 0 };
    if (input.observation !== undefined) {
      const deleted = (await tx.query(DELETE_OBSERVATION, [entity.id, input.observation])).rowCount ?? 0;
      if (deleted === 0) {
        throw because(
          "changed_since_read",
          conflict(`"${entity.name}" in scope "${scope}" has no such observation any more: it changed since you opened it (deleted or redacted meanwhile). Nothing was changed; look again and choose what to redact.`),
        );
      }
      removed = { observations: 1, relations: 0 };
    } else {
      const relations = (await tx.query(DELETE_RELATIONS, [scope, entity.name])).rowCount ?? 0;
      await tx.query(DELETE_ENTITY, [entity.id]);
      await tx.query(BLANK_DELETIONS, [scope, entity.name, REDACTED_TEXT]);
      removed = { observations: entity.observation_count, relations };
    }
    const kind = input.observation === undefined ? "entity" : "observation";
    const at = (await tx.query<{ redacted_at: Date }>(TOMBSTONE, [scope, entity.id, kind, caller.agentId, reason])).rows[0]!.redacted_at;
    return { scope, entityId: entity.id, kind, removed, by: caller.name, at: at.toISOString(), reason };
  });
}
