// From a parsed file to the history the fact should have: names, lengths and
// types validated exactly as memory_store validates them (facts/rules.ts),
// authors mapped to agents here.
import { SHARED_SCOPE, validateScope } from "../auth/scopes.js";
import { DomainError, invalid } from "../errors.js";
import { FACT_STATUSES, type FactContent, type FactStatus, transitionAllowed, validateBody, validateDescription, validateName, validateType } from "../facts/index.js";
import { REASON_MAX_CHARS } from "../limits.js";
import type { AgentMap, MappedAgent } from "./agents.js";
import { type PlannedEvent, sameContent, type TargetHistory } from "./history.js";
import { factPath, type StoredHistory, type Unchecked } from "./model.js";
import type { SeedFile, SnapshotFile } from "./parse.js";

export interface TargetContext {
  agents: AgentMap;
  bodyMaxChars: number;
  /** The import's own time (ISO, ms): when seed-format changes happen. */
  importAt: string;
  /** The file, relative to the imported folder ("blog/project_x.md"). */
  file: string;
  /** The sub-folder the file is in, or null at the top level. */
  folder: string | null;
  /** The reserved importer identity, when this file needs it (see wantsImporter). */
  importer?: MappedAgent | null;
}

/** Prefixes a rule's message with where it applies ("version 2: description is …"). */
function within<T>(where: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof DomainError && where !== "") throw invalid(`${where}: ${error.message}`);
    throw error;
  }
}

function content(raw: Unchecked<FactContent, "type">, bodyMaxChars: number, where: string): FactContent {
  return within(where, () => ({
    type: validateType(raw.type),
    description: validateDescription(raw.description),
    body: validateBody(raw.body, bodyMaxChars),
  }));
}

export interface Identity {
  scope: string;
  name: string;
}

export function snapshotIdentity(file: SnapshotFile, ctx: TargetContext): Identity {
  const f = file.fact;
  const name = validateName(f.name);
  const scope = validateScope(f.scope);
  const expected = factPath(scope, f.type, name);
  if (ctx.file !== expected) throw invalid(`an exported fact of scope "${scope}" named "${name}" (type ${f.type}) belongs at ${expected}; move it there or fix its front matter.`);
  return { scope, name };
}

/** The whole history an exported file describes; checked against its front matter by the caller. */
export function snapshotTarget(file: SnapshotFile, ctx: TargetContext): TargetHistory {
  const f = file.fact;
  f.earlier.forEach((v, i) => {
    if (v.version !== i + 1) throw invalid(`Earlier versions entry ${i + 1} must be version ${i + 1}, got ${v.version}.`);
  });
  if (f.earlier.length !== f.version - 1) {
    throw invalid(`the fact is at version ${f.version}, so the Earlier versions section must hold versions 1 to ${f.version - 1}; it holds ${f.earlier.length}.`);
  }
  const contents = [...f.earlier.map((v) => content(v, ctx.bodyMaxChars, `version ${v.version}`)), content(f, ctx.bodyMaxChars, "")];
  ctx.agents.requireAll(f.history.map((e, i) => [e.by, `History entry ${i + 1}: by`] as const));
  const events: PlannedEvent[] = f.history.map((e, i) => {
    const agent = ctx.agents.resolve(e.by, `History entry ${i + 1}: by`);
    return { kind: e.event, version: e.version, actorId: agent.id, actor: agent.name, at: e.at, from: e.from, to: e.to, reason: e.reason };
  });
  return { contents, events };
}

export function seedIdentity(seed: SeedFile, ctx: TargetContext): Identity {
  const name = validateName(seed.name);
  if (seed.scope !== undefined && ctx.folder !== null && seed.scope !== ctx.folder) {
    throw invalid(`the file is in folder "${ctx.folder}" but says scope: ${seed.scope}; move it or fix the scope.`);
  }
  if (seed.scope === undefined && ctx.folder !== null) {
    // The folder stands for the scope: say so if its name cannot be one.
    const folder = ctx.folder;
    within(`the file is in folder "${folder}", which names its scope`, () => validateScope(folder));
  }
  const scope = validateScope(seed.scope ?? ctx.folder ?? SHARED_SCOPE);
  return { scope, name };
}

/**
 * A seed file states the current content and status only. New fact: version 1
 * by its owner at `created`, then the promotion its status implies. Existing
 * fact: a new version when the content differs (as memory_store would store
 * it), and the promotion when the status is a step forward; otherwise nothing.
 */
export function seedTarget(seed: SeedFile, stored: StoredHistory | null, ctx: TargetContext): TargetHistory {
  const wanted = content(seed, ctx.bodyMaxChars, "");
  if (!(FACT_STATUSES as readonly string[]).includes(seed.status)) {
    throw invalid(`status "${seed.status}" is not valid: use draft, confirmed or deprecated.`);
  }
  const status = seed.status as FactStatus;
  if (seed.owner === undefined && !ctx.agents.as) throw invalid(`the front matter has no owner: add "owner: <agent>" or pass --as <agent>.`);
  const owner = seed.owner === undefined ? ctx.agents.as! : ctx.agents.resolve(seed.owner, "owner");

  const history: TargetHistory = stored
    ? { contents: [...stored.versions], events: stored.events.map((e) => ({ ...e })) }
    : { contents: [], events: [] };
  const last = history.events[history.events.length - 1];
  let current: FactStatus = last?.to ?? "draft";

  const currentContent = history.contents[history.contents.length - 1];
  // Imported before the promotion lines left the body: the same file, not a change.
  const asWritten = seed.bodyAsWritten === seed.body ? wanted : { ...wanted, body: seed.bodyAsWritten };
  if (!currentContent || !(sameContent(currentContent, wanted) || sameContent(currentContent, asWritten))) {
    const version = history.contents.length + 1;
    history.contents.push(wanted);
    history.events.push({
      kind: version === 1 ? "created" : "updated",
      version,
      actorId: owner.id,
      actor: owner.name,
      at: version === 1 ? (seed.created ?? ctx.importAt) : ctx.importAt,
      from: version === 1 ? null : current,
      to: "draft",
      reason: null,
    });
    current = "draft";
  }
  if (status !== current && status !== "draft" && transitionAllowed(current, status)) {
    // The author of the current version: the self-approval guard is about them.
    const wrote = [...history.events].reverse().find((e) => e.kind === "created" || e.kind === "updated")!;
    const author = { id: wrote.actorId, name: wrote.actor };
    history.events.push(seedPromotion(seed, status, history.contents.length, author, current, ctx));
  }
  return history;
}

/** The seed's own confirmation line, if any: "> [confirmed] by X: why". */
const confirmationLine = (seed: SeedFile) => [...seed.promotions].reverse().find((p) => p.to === "confirmed");

/**
 * Whether a seed file's confirmation falls to the importer identity: it says
 * status: confirmed, no --as was given, and it names no confirmer who is an
 * agent here. (A named confirmer who is an agent here keeps the usual rules,
 * so a fact its own author "confirmed" is still refused.)
 */
export function wantsImporter(seed: SeedFile, agents: AgentMap): boolean {
  if (seed.status !== "confirmed" || agents.as) return false;
  const line = confirmationLine(seed);
  return !line || agents.known(line.by) === null;
}

/**
 * Who promotes a seed fact: the reviewer named in its "> [status] by X: why"
 * line if X is an agent here, else the --as agent, else (for a confirmation
 * the file-based memory already had) the reserved importer identity; a
 * deprecation may also be the author's own. A confirmation needs someone other
 * than the author.
 */
function seedPromotion(
  seed: SeedFile,
  to: "confirmed" | "deprecated",
  version: number,
  author: { id: number; name: string },
  from: FactStatus,
  ctx: TargetContext,
): PlannedEvent {
  const line = [...seed.promotions].reverse().find((p) => p.to === to);
  const named = line ? ctx.agents.known(line.by) : null;
  const importer = to === "confirmed" && named === null ? (ctx.importer ?? null) : null;
  const candidates = [named, ctx.agents.as, importer].filter((a): a is MappedAgent => a !== null);
  const actor = to === "confirmed" ? candidates.find((a) => a.id !== author.id) : candidates[0];
  if (!actor && to === "confirmed") {
    throw invalid(
      `status: confirmed needs a confirmer other than the author (nobody confirms their own fact)${line ? `; "${line.by}" is not another agent here` : ""}. Pass --as <reviewer> to record the confirmation under that agent.`,
    );
  }
  const by = actor ?? author;
  const reason =
    line && line.by === by.name
      ? line.reason
      : importer && by.id === importer.id
        ? `confirmed before import (source: ${ctx.file})${line ? `: confirmed by ${line.by}: ${line.reason}` : ""}`
        : `imported from ${ctx.file}${line ? `: ${to} by ${line.by}: ${line.reason}` : ` (status: ${to} in the file)`}`;
  return { kind: to, version, actorId: by.id, actor: by.name, at: ctx.importAt, from, to, reason: [...reason].slice(0, REASON_MAX_CHARS).join("") };
}
