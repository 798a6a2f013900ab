// Supersession: a new fact names the fact it replaces (memory_store's
// `supersedes`). Nothing happens to the old fact until someone other than the
// new fact's author confirms it; then, in the confirmation's transaction, the
// old fact is deprecated ("superseded by …") and points at its successor. The
// old row is locked first, so of two replacements confirmed at once exactly one
// becomes the successor and the other confirmation is refused.
import type { Caller } from "../../auth/caller.js";
import { assertCanWrite, canRead, canWrite, validateScope } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { conflict, forbidden, invalid, notFound } from "../../errors.js";
import { prepared } from "../prepared.js";
import { validateName } from "../rules.js";
import * as sql from "../sql.js";

interface SupersededRow {
  id: number;
  scope: string;
  name: string;
  version: number;
  status: string;
  successor: string | null;
}

const FACT_BY_NAME = `
  select f.id, f.scope, f.name, f.version, f.status, s.scope || '/' || s.name as successor
    from facts f left join facts s on s.id = f.superseded_by_id
   where f.name = $1::text and f.scope = $2::text`;

const LOCK_SUPERSEDED = `
  with f as (select * from facts where id = $1::bigint for update)
  select f.id, f.scope, f.name, f.version, f.status, s.scope || '/' || s.name as successor
    from f left join facts s on s.id = f.superseded_by_id`;

const LINK_SUCCESSOR = `update facts set superseded_by_id = $2::bigint where id = $1::bigint`;

/** "name" (in the new fact's scope) or "scope/name". */
function parseTarget(supersedes: string, scope: string): { scope: string; name: string } {
  const slash = supersedes.indexOf("/");
  if (slash < 0) return { scope, name: validateName(supersedes) };
  return { scope: validateScope(supersedes.slice(0, slash)), name: validateName(supersedes.slice(slash + 1)) };
}

/** The fact a new one will replace: it must exist in a scope the caller may write, and not be replaced already. */
export async function resolveSuperseded(db: Queryable, caller: Caller, scope: string, name: string, supersedes: string): Promise<{ id: number; scope: string; name: string }> {
  const target = parseTarget(supersedes.trim(), scope);
  if (target.scope === scope && target.name === name) throw invalid(`supersedes names the fact being stored ("${name}"): name the fact this one replaces.`);
  assertCanWrite(caller, target.scope);
  const row = (await db.query<SupersededRow>(FACT_BY_NAME, [target.name, target.scope], prepared("superseded_by_name"))).rows[0];
  if (!row) throw notFound(`supersedes: no fact named "${target.name}" in scope "${target.scope}" to replace. Check the name with memory_recall or memory_list; nothing was written.`);
  if (row.successor) throw conflict(`supersedes: "${target.scope}/${target.name}" was already replaced by ${named(caller, row.successor)}. Update that fact instead; nothing was written.`);
  return { id: row.id, scope: row.scope, name: row.name };
}

/** "scope/name" in quotes for a reader of that scope; for anyone else, only that there is one. */
function named(reader: Caller, ref: string): string {
  return canRead(reader, ref.slice(0, ref.indexOf("/"))) ? `"${ref}"` : "a fact in a scope you cannot read";
}

export interface Superseded {
  scope: string;
  name: string;
  version: number;
}

/**
 * Inside the confirmation of `successor`: deprecates the fact it replaces
 * (unless already deprecated) and links the two. Refused if another successor
 * was confirmed first; the caller's transaction then rolls back.
 */
export async function completeSupersession(
  tx: Queryable,
  successor: { id: number; scope: string; name: string; version: number },
  supersededId: number,
  reviewer: Caller,
): Promise<Superseded> {
  const old = (await tx.query<SupersededRow>(LOCK_SUPERSEDED, [supersededId], prepared("lock_superseded"))).rows[0]!;
  // Confirming the successor deprecates the old fact in the reviewer's name: a
  // change to the old fact's scope, which the reviewer must be able to make.
  if (!canWrite(reviewer, old.scope)) {
    throw forbidden(
      `Confirming "${successor.name}" would deprecate the fact it replaces, ${named(reviewer, `${old.scope}/${old.name}`)}, in a scope you (${reviewer.name}) may not write. ` +
        `Nothing was changed: ask someone who may write both scopes to confirm it.`,
    );
  }
  if (old.successor && old.successor !== `${successor.scope}/${successor.name}`) {
    const first = named(reviewer, old.successor);
    throw conflict(
      `"${successor.name}" replaces "${old.scope}/${old.name}", which ${first} replaced first (confirmed meanwhile). Nothing was changed: ` +
        `merge what "${successor.name}" adds into that fact with memory_store, or confirm it as a separate fact after removing supersedes.`,
      canRead(reviewer, old.successor.slice(0, old.successor.indexOf("/"))) ? { supersededBy: old.successor } : {},
    );
  }
  if (old.status !== "deprecated") {
    // The reason is read by everyone who reads the old fact: it names the
    // successor only where they can read it too (the same scope); readers of
    // both see the link itself in memory_get.
    const by = successor.scope === old.scope ? `${successor.name} (version ${successor.version})` : "a fact in another scope";
    const reason = `superseded by ${by}, confirmed by ${reviewer.name}`;
    await tx.query(sql.PROMOTE_FACT, [old.id, "deprecated", reviewer.agentId, reason, old.status, null], prepared("promote"));
  }
  await tx.query(LINK_SUCCESSOR, [old.id, successor.id], prepared("link_successor"));
  return { scope: old.scope, name: old.name, version: old.version };
}

const SUCCESSORS = `
  select f.scope, f.name, s.scope || '/' || s.name as successor
    from unnest($1::text[], $2::text[]) as k (scope, name)
    join facts f on f.scope = k.scope and f.name = k.name
    join facts s on s.id = f.superseded_by_id
   where am_in_scopes(s.scope, $3::boolean, $4::text[])`;

/**
 * Recall shows a superseded fact's replacement next to it: one more query,
 * only when a hit is deprecated, and only successors the caller may read.
 */
export async function addSuccessors(db: Queryable, readable: { all: boolean; scopes: string[] }, hits: Array<{ scope: string; name: string; status: string; supersededBy?: string }>): Promise<void> {
  const deprecated = hits.filter((h) => h.status === "deprecated");
  if (deprecated.length === 0) return;
  const rows = (await db.query<{ scope: string; name: string; successor: string }>(SUCCESSORS, [deprecated.map((h) => h.scope), deprecated.map((h) => h.name), readable.all, readable.scopes], prepared("successors"))).rows;
  for (const r of rows) {
    const hit = deprecated.find((h) => h.scope === r.scope && h.name === r.name);
    if (hit) hit.supersededBy = r.successor;
  }
}

// An import's links (an export's front matter `supersedes` / `superseded-by`),
// set once both facts exist. $1 the fact's scope, $2 its name, $3 the other's scope, $4 its name.
const LINK_BY_NAME = (column: "supersedes_id" | "superseded_by_id") => `
  update facts f set ${column} = o.id
    from facts o
   where f.scope = $1::text and f.name = $2::text and o.scope = $3::text and o.name = $4::text
     and f.${column} is distinct from o.id`;

/**
 * Restores an imported tree's supersession links. A link is restored only
 * between two facts of the tree (`imported`, "scope/name"), never from a fact
 * to itself: front matter is text anyone can edit, and a link deprecates and
 * redirects readers of a fact.
 */
export async function restoreSupersessions(
  db: Queryable,
  links: Array<{ scope: string; name: string; supersedes?: string | undefined; supersededBy?: string | undefined }>,
  imported: ReadonlySet<string>,
): Promise<void> {
  const split = (ref: string) => [ref.slice(0, ref.indexOf("/")), ref.slice(ref.indexOf("/") + 1)];
  const restorable = (self: string, other: string | undefined): other is string => other !== undefined && other !== self && imported.has(other);
  for (const l of links) {
    const self = `${l.scope}/${l.name}`;
    if (restorable(self, l.supersedes)) await db.query(LINK_BY_NAME("supersedes_id"), [l.scope, l.name, ...split(l.supersedes)]);
    if (restorable(self, l.supersededBy)) await db.query(LINK_BY_NAME("superseded_by_id"), [l.scope, l.name, ...split(l.supersededBy)]);
  }
}
