// Imports one fact file inside the caller's transaction: lock the fact, compare
// the history the file wants with the one stored, and append what is missing
// with the original authors and times. Nothing is ever rewritten: a file whose
// history contradicts the database is refused.
import { ensureImporterAgent } from "../auth/store.js";
import type { Queryable } from "../db/core/database.js";
import { conflict, invalid } from "../errors.js";
import { factHistory, lockFactInScope, replayCreate, replayPromotion, replayUpdate, restoreRedactions } from "../facts/index.js";
import { checkLifecycle, eventText, sameContent, sameEvent, type TargetHistory } from "./history.js";
import type { ParsedFile, SeedFile, SnapshotFile } from "./parse.js";
import type { StoredHistory } from "./model.js";
import { type Identity, seedIdentity, seedTarget, snapshotIdentity, snapshotTarget, type TargetContext, wantsImporter } from "./targets.js";

export type FactOutcome = "created" | "updated" | "unchanged";

interface FactImportResult extends Identity {
  outcome: FactOutcome;
  /** Only when true: this import recorded the fact's confirmation under the importer identity. */
  confirmedByImporter?: true;
}

/** A snapshot file's fact, checked: where it goes and the whole history it must have there. */
export interface PlannedFact {
  identity: Identity;
  target: TargetHistory;
}

/**
 * Everything importFactFile checks of an exported file before it looks at the
 * database (an exported file says its whole history, whatever the database
 * holds): its name and place, its history against the lifecycle, its front
 * matter against its history. Throws the file's first problem.
 */
export function planSnapshotFact(parsed: SnapshotFile, ctx: TargetContext): PlannedFact {
  const identity = snapshotIdentity(parsed, ctx);
  const target = snapshotTarget(parsed, ctx);
  assertFrontMatterAgrees(parsed, checkLifecycle(target), ctx, target);
  return { identity, target };
}

export async function importFactFile(tx: Queryable, parsed: ParsedFile, fileCtx: TargetContext): Promise<FactImportResult> {
  // Created in this file's transaction, only when the file needs it.
  const importer = parsed.format === "seed" && wantsImporter(parsed, fileCtx.agents) ? await ensureImporterAgent(tx) : null;
  const ctx: TargetContext = { ...fileCtx, importer };
  const planned = parsed.format === "snapshot" ? planSnapshotFact(parsed, ctx) : null;
  const identity = planned?.identity ?? seedIdentity(parsed as SeedFile, ctx);
  // The row lock makes compare-then-append exact against a running service.
  const factId = await lockFactInScope(tx, identity.name, identity.scope);
  const stored = factId !== null ? await factHistory(tx, factId) : null;
  const target = planned?.target ?? seedTarget(parsed as SeedFile, stored, ctx);
  if (!planned) checkLifecycle(target);

  const from = stored ? missingFrom(stored, target, identity) : 0;
  if (from < target.events.length) await append(tx, factId, identity, target, from);
  if (parsed.format === "snapshot" && parsed.fact.redactions.length > 0) {
    const id = factId ?? (await lockFactInScope(tx, identity.name, identity.scope))!;
    await restoreRedactions(tx, id, parsed.fact.redactions.map((r) => ({ version: r.version, byId: ctx.agents.resolve(r.by, "redacted by").id, at: r.at, reason: r.reason })));
  }
  if (from >= target.events.length) return { ...identity, outcome: "unchanged" };
  const byImporter = importer !== null && target.events.slice(from).some((e) => e.kind === "confirmed" && e.actorId === importer.id);
  return { ...identity, outcome: factId !== null ? "updated" : "created", ...(byImporter ? { confirmedByImporter: true as const } : {}) };
}

/** The front matter repeats what the history implies; a hand edit of one without the other is refused. */
function assertFrontMatterAgrees(file: SnapshotFile, final: ReturnType<typeof checkLifecycle>, ctx: TargetContext, target: TargetHistory): void {
  const f = file.fact;
  const author = ctx.agents.resolve(f.author, "author");
  const mismatch = (field: string, front: unknown, history: unknown) => {
    throw invalid(`front-matter "${field}" is ${front} but the History section says ${history}; the two must agree (re-export instead of editing by hand).`);
  };
  if (f.version !== final.version) mismatch("version", f.version, final.version);
  if (f.status !== final.status) mismatch("status", f.status, final.status);
  if (author.id !== final.authorId) mismatch("author", f.author, target.events.findLast((e) => e.kind !== "confirmed" && e.kind !== "deprecated")!.actor);
  if (f.created !== final.created) mismatch("created", f.created, final.created);
  if (f.updated !== final.updated) mismatch("updated", f.updated, final.updated);
}

/**
 * How many of the target's events the database already has. The stored history
 * must be a prefix of the target (then the rest is appended) or the target a
 * prefix of the stored one (an older snapshot: nothing to do); anything else
 * means the two have diverged.
 */
function missingFrom(stored: StoredHistory, target: TargetHistory, id: Identity): number {
  const diverged = (detail: string): never => {
    throw conflict(
      `the database's history of "${id.name}" (scope ${id.scope}) differs from the file's: ${detail}. Nothing was imported from this file; ` +
        `history is never rewritten (change the fact with memory_store, or export it again to see what the database holds).`,
    );
  };
  const shared = Math.min(stored.events.length, target.events.length);
  for (let i = 0; i < shared; i++) {
    const s = stored.events[i]!;
    const t = target.events[i]!;
    if (!sameEvent(s, t)) diverged(`history entry ${i + 1} is "${eventText(s)}" in the database and "${eventText(t)}" in the file`);
  }
  const versions = Math.min(stored.versions.length, target.contents.length);
  for (let v = 0; v < versions; v++) {
    if (!sameContent(stored.versions[v]!, target.contents[v]!)) diverged(`version ${v + 1} has different content`);
  }
  return stored.events.length;
}

async function append(tx: Queryable, factId: number | null, id: Identity, target: TargetHistory, from: number): Promise<void> {
  let current = factId;
  for (const e of target.events.slice(from)) {
    const c = target.contents[e.version - 1]!;
    if (e.kind === "created") {
      // The same statements memory_store and memory_promote use, at the event's original time.
      current = await replayCreate(tx, id.scope, id.name, c, e.actorId, e.at);
      if (current === null) throw conflict(`"${id.name}" was created in scope "${id.scope}" while this import ran; run the import again.`);
    } else if (e.kind === "updated") {
      const version = await replayUpdate(tx, current!, id.name, c, e.actorId, e.from, e.at);
      if (version !== e.version) throw new Error(`import of "${id.name}" produced version ${version}, expected ${e.version}`);
    } else {
      await replayPromotion(tx, current!, e.kind, e.actorId, e.reason, e.from, e.at);
    }
  }
}
