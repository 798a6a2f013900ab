// A read that finds nothing in the scope it asked (by default "shared") says
// which other scopes the caller may read would have answered, and how: an agent
// whose entities are in "blog" otherwise gets an empty graph and no hint (memory
// recall, by contrast, searches every readable scope). Only readable scopes are
// ever looked at, so an unreadable one is never revealed, not even by timing
// beyond its own index lookups. The work is bounded: at most OTHER_SCOPES_CHECKED
// scopes that hold entities (from the kept per-scope counts), and per scope one
// bounded search (a small count cap and walk) or one index lookup per name.
import type { Caller } from "../auth/caller.js";
import { readableScopes } from "../auth/scopes.js";
import type { Database } from "../db/core/database.js";
import { json } from "./format.js";
import { prepared } from "./prepared.js";
import * as sql from "./read-sql.js";
import { searchNodes } from "./search.js";

/** Scopes with entities looked at, at most, in name order. */
export const OTHER_SCOPES_CHECKED = 8;
/** Per scope, search_nodes' hint counts matches up to this ("at least" past it)… */
const HINT_COUNT_CAP = 100;
/** …and walks at most this many entities where the indexes cannot narrow the search. */
const HINT_SCAN_MAX = 1000;

interface OtherScope {
  scope: string;
  /** Entities that matched there (read_graph: entities there). */
  matches: number;
  /** The count stopped at its cap: at least `matches`. */
  matchesIsLowerBound?: true;
}

/** The caller's readable scopes other than `asked` that hold entities, with their entity counts. */
async function scopesWithEntities(db: Database, caller: Caller, asked: string): Promise<Array<{ scope: string; entities: number }>> {
  const readable = readableScopes(caller);
  const r = await db.query<{ scope: string; entities: number }>(sql.OTHER_SCOPE_COUNTS, [asked, readable.all, readable.scopes, OTHER_SCOPES_CHECKED], prepared("other_scopes"));
  return r.rows;
}

/** read_graph: the other readable scopes that hold a graph. */
export async function graphsElsewhere(db: Database, caller: Caller, asked: string): Promise<OtherScope[]> {
  return (await scopesWithEntities(db, caller, asked)).map((s) => ({ scope: s.scope, matches: s.entities }));
}

/** search_nodes: the other readable scopes where `query` matches. */
export async function searchElsewhere(db: Database, caller: Caller, asked: string, query: string, maxChars: number): Promise<OtherScope[]> {
  const found: OtherScope[] = [];
  for (const { scope } of await scopesWithEntities(db, caller, asked)) {
    const page = await searchNodes(db, scope, query, { limit: 1 }, maxChars, HINT_COUNT_CAP, HINT_SCAN_MAX);
    // A walk cut short may have missed matches; those it counted are there.
    if (page.totalEntities > 0) found.push({ scope, matches: page.totalEntities, ...(page.totalEntitiesIsLowerBound || page.scanCut ? { matchesIsLowerBound: true as const } : {}) });
  }
  return found;
}

/** open_nodes: the other readable scopes that hold some of `names`. */
export async function namesElsewhere(db: Database, caller: Caller, asked: string, names: string[]): Promise<OtherScope[]> {
  const found: OtherScope[] = [];
  for (const { scope } of await scopesWithEntities(db, caller, asked)) {
    const n = (await db.query<{ n: number }>(sql.NAMES_IN_SCOPE, [scope, names], prepared("names_in_scope"))).rows[0]!.n;
    if (n > 0) found.push({ scope, matches: n });
  }
  return found;
}

/** The answer's text when the asked scope had nothing and others do: the reference's empty graph, with a note saying where to look. */
export function elsewhereText(tool: "read_graph" | "search_nodes" | "open_nodes", asked: string, others: OtherScope[]): string {
  const counted = (o: OtherScope) => `"${o.scope}" (${o.matchesIsLowerBound ? "at least " : ""}${o.matches} ${o.matches === 1 ? "entity" : "entities"})`;
  const found = tool === "read_graph" ? "Scope \"" + asked + "\" has no entities" : `Nothing in scope "${asked}" matches`;
  const note = `${found}. Other scopes you may read that ${tool === "read_graph" ? "have entities" : "do"}: ${others.map(counted).join(", ")}. Call ${tool} again with scope: "${others[0]!.scope}" (or another of them).`;
  return json({ note, otherScopes: others, entities: [], relations: [] });
}
