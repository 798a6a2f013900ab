// The history an import wants a fact to have, checked against the lifecycle
// before anything is written: the same rules as memory_store/memory_promote
// (and the database's triggers), with messages that name the entry at fault.
import { invalid } from "../errors.js";
import { type FactContent, type FactStatus, isReconfirmation, transitionAllowed, validateReason } from "../facts/index.js";
import type { StoredEvent } from "./model.js";

/** An event the import will write: the same shape as one read from the database. */
export type PlannedEvent = StoredEvent;

export interface TargetHistory {
  /** contents[v - 1] is version v. */
  contents: FactContent[];
  events: PlannedEvent[];
}

interface FinalState {
  version: number;
  status: FactStatus;
  authorId: number;
  created: string;
  updated: string;
}

/** Walks the events as the database would apply them; throws at the first one it would refuse. */
export function checkLifecycle(h: TargetHistory): FinalState {
  const first = h.events[0];
  if (!first || first.kind !== "created" || first.version !== 1) {
    throw invalid(`History entry 1 must be the creation of version 1 (event: created, version: 1).`);
  }
  const state: FinalState = { version: 0, status: "draft", authorId: first.actorId, created: first.at, updated: first.at };
  h.events.forEach((e, i) => {
    const where = `History entry ${i + 1} (${e.kind} of version ${e.version})`;
    const fail = (why: string): never => {
      throw invalid(`${where}: ${why}`);
    };
    const expectVersion = (v: number) => {
      if (e.version !== v) fail(`the version must be ${v}.`);
    };
    if (e.kind === "created" || e.kind === "updated") {
      if (e.kind === "created" && i > 0) fail("a fact is created only once, as the first entry.");
      expectVersion(state.version + 1);
      const from = e.kind === "created" ? null : state.status;
      if (e.from !== from) fail(from === null ? `a creation has no "from" status.` : `"from" must be ${from}, the status before it.`);
      if (e.to !== "draft") fail(`every new version starts as draft ("to: draft").`);
      if (e.reason !== null) fail("a new version carries no reason; reasons belong to promotions.");
      if (!h.contents[e.version - 1]) fail(`the file has no content for version ${e.version}.`);
      Object.assign(state, { version: e.version, status: "draft", authorId: e.actorId, updated: e.at });
      return;
    }
    expectVersion(state.version);
    if (e.from !== state.status) fail(`"from" must be ${state.status}, the status before it.`);
    if (e.to !== e.kind) fail(`"to" must be ${e.kind}.`);
    // A re-confirmation (a stale fact reviewed again) is history like any other.
    if (!transitionAllowed(state.status, e.kind) && !isReconfirmation(state.status, e.kind)) fail(`a fact cannot go from ${state.status} to ${e.kind}.`);
    if (e.kind === "confirmed" && e.actorId === state.authorId) {
      fail(`${e.actor} wrote version ${e.version} and cannot also confirm it (self-approval is refused). Pass --as with another agent if the original reviewer is not an agent here.`);
    }
    if (e.reason === null) fail(`a promotion needs a reason.`);
    try {
      validateReason(e.reason!);
    } catch (error) {
      fail((error as Error).message);
    }
    state.status = e.kind;
  });
  if (state.version !== h.contents.length) throw invalid(`the file has ${h.contents.length} version(s) of content but its history reaches version ${state.version}.`);
  return state;
}

export const sameContent = (a: FactContent, b: FactContent): boolean => a.description === b.description && a.type === b.type && a.body === b.body;

export const sameEvent = (a: StoredEvent, b: PlannedEvent): boolean =>
  a.kind === b.kind &&
  a.version === b.version &&
  a.actorId === b.actorId &&
  a.at === b.at &&
  a.from === b.from &&
  a.to === b.to &&
  a.reason === b.reason;

export const eventText = (e: { kind: string; version: number; actor: string; at: string }): string => `${e.kind} of version ${e.version} by ${e.actor} at ${e.at}`;
