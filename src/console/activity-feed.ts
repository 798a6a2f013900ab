// The activity feed's pages: each source (fact events, the four graph tables,
// the ledger) is read newest first below its own position, and the page takes
// the newest items of all of them together. The "Older" link then carries,
// per source, where that source goes on, so every item is shown once, in order,
// however the sources interleave in time.
import * as z from "zod/v4";
import { GRAPH_ACTIVITY_SOURCES } from "../graph/index.js";
import { openSealedCursor, sealCursor } from "../paging.js";
import type { ActivityItem } from "./views/activity.js";

export const ACTIVITY_SOURCES = ["facts", ...GRAPH_ACTIVITY_SOURCES, "ledger"] as const;
export type ActivitySource = (typeof ACTIVITY_SOURCES)[number];

/** Per source: read below this id; 0, nothing older is left; absent, from the newest. */
export type ActivityPosition = Partial<Record<ActivitySource, number>>;

export interface SourcePage {
  /** Newest first, each with the id its source orders by. */
  items: Array<{ id: number; item: ActivityItem }>;
  /** The read stopped at its bound at this id (an agent filter): older items are read below it. */
  stop: number | null;
  /** When stopped: the time of the row at `stop` (ISO, as items' `at`). */
  stopAt: string | null;
  /** The read returned as many as it was asked for: older items may exist below its last. */
  full: boolean;
}

/**
 * The newest `limit` items of all sources (each source's items stay in their
 * id order; between sources the newer goes first), and where each source goes
 * on: below the last item shown of it, or, when all it read was shown, below
 * that (more may follow), below where its read stopped, or nowhere (0).
 * A read that stopped at its bound knows nothing older than where it stopped,
 * so the page shows nothing older than that from any source: those wait for
 * the next page, which keeps the whole feed newest first.
 */
export function mergeActivity(
  pages: Record<ActivitySource, SourcePage>,
  from: ActivityPosition,
  limit: number,
): { items: ActivityItem[]; next: ActivityPosition | null } {
  const taken = Object.fromEntries(ACTIVITY_SOURCES.map((s) => [s, 0])) as Record<ActivitySource, number>;
  const horizon = ACTIVITY_SOURCES.reduce((h, s) => (pages[s].stopAt !== null && pages[s].stopAt! > h ? pages[s].stopAt! : h), "");
  const items: ActivityItem[] = [];
  while (items.length < limit) {
    let newest: ActivitySource | undefined;
    for (const s of ACTIVITY_SOURCES) {
      const head = pages[s].items[taken[s]];
      if (head && head.item.at >= horizon && (newest === undefined || head.item.at > pages[newest].items[taken[newest]]!.item.at)) newest = s;
    }
    if (newest === undefined) break;
    items.push(pages[newest].items[taken[newest]++]!.item);
  }
  const next: ActivityPosition = {};
  for (const s of ACTIVITY_SOURCES) {
    const page = pages[s];
    const last = page.items[taken[s] - 1];
    if (taken[s] < page.items.length) {
      if (last) next[s] = last.id;
      else if (from[s] !== undefined) next[s] = from[s];
    } else if (page.full && last) next[s] = last.id;
    else if (page.stop !== null) next[s] = page.stop;
    else next[s] = 0;
  }
  const more = ACTIVITY_SOURCES.some((s) => next[s] !== 0);
  return { items, next: more ? next : null };
}

const Position = z.object({ k: z.literal("a"), ...Object.fromEntries(ACTIVITY_SOURCES.map((s) => [s, z.number().int().nonnegative().optional()])) });

/** The "Older" link's position, sealed as the tools' cursors are (its ids belong to sequences all scopes share). */
export function sealPosition(key: Buffer, position: ActivityPosition): string {
  return sealCursor(key, { k: "a", ...position });
}

/** Throws a DomainError ("cursor is not valid …") for anything but a sealed position. */
export function openPosition(key: Buffer, cursor: string | undefined): ActivityPosition {
  const opened = openSealedCursor(key, cursor, Position) as (ActivityPosition & { k: "a" }) | undefined;
  if (!opened) return {};
  const { k: _k, ...position } = opened;
  return position;
}
