// The review queue as people see it (the web console): the drafts a reviewer
// may confirm, oldest first so nothing waits forever, with the previous version
// of an updated fact for a diff; and the stale facts they may confirm again.
// Same rule as memory_list reviewable: true.
import { type Caller } from "../../auth/caller.js";
import type { Database, Queryable } from "../../db/core/database.js";
import * as z from "zod/v4";
import { openSealedCursor, sealCursor } from "../../paging.js";
import { cursorKey } from "../../db/sql/cursor-key.js";
import { LIST_SCAN_MAX } from "../../limits.js";
import { type FactPageRequest, factPageParams, type PageRow, readFactPage } from "../lifecycle/list.js";
import { type FactSummary, type SimilarFact, toSummary } from "../model.js";
import { daysSinceReview, type FactType, STALE_AFTER_DAYS_DEFAULT } from "../rules.js";
import { prepared } from "../prepared.js";
import * as sql from "../sql.js";
import { similarFacts } from "../lifecycle/store.js";

/** Counting stops here: past it the queue shows "1000+", and the count stays cheap at any size. */
const REVIEW_COUNT_CAP = 1000;

export interface ReviewItem extends FactSummary {
  /** Readable facts much like this draft (memory_store's duplicate lookup, deprecated ones included), most similar first. */
  similar: SimilarFact[];
  body: string;
  /** The version before the current one (for an updated fact), to diff against. */
  previous: { description: string; type: FactType; body: string } | null;
  /** Pass as `after` for the page that follows this item. */
  seq: number;
}

export interface ReviewQueue {
  items: ReviewItem[];
  /** Drafts waiting for this reviewer in all, up to REVIEW_COUNT_CAP (or as far as the count's scan read). */
  count: number;
  countCapped: boolean;
  /**
   * `cursor` for the next page; null on the last. Sealed like memory_list's: a
   * page cut at the scan's bound stops at a draft the reviewer may not read, and
   * in the clear its position would tell how many such drafts exist.
   */
  nextCursor: string | null;
  /** The page stopped at the scan's bound (LIST_SCAN_MAX), not at the last draft: more may wait after nextCursor. */
  scanCut: boolean;
}

type QueueRow = PageRow & {
  body: string;
  prev_description: string | null;
  prev_type: FactType | null;
  prev_body: string | null;
};

interface QueueOptions {
  /** Facts one scan reads at most (LIST_SCAN_MAX): the queue's cost does not grow with what others wrote elsewhere. */
  scanMax?: number | undefined;
}

/** How many facts wait, counted by a bounded scan up to REVIEW_COUNT_CAP. */
async function countWaiting(db: Queryable, request: FactPageRequest, name: string): Promise<{ count: number; countCapped: boolean }> {
  const row = (await db.query<{ n: number; stopped: boolean }>(sql.FACT_PAGE_COUNT, factPageParams({ ...request, want: REVIEW_COUNT_CAP + 1 }), prepared(name))).rows[0];
  const n = row?.n ?? 0;
  return { count: Math.min(n, REVIEW_COUNT_CAP), countCapped: n > REVIEW_COUNT_CAP || (row?.stopped ?? false) };
}

export async function reviewQueue(
  db: Database,
  caller: Caller,
  options: QueueOptions & {
    /** nextCursor of the previous page. */
    cursor?: string | undefined;
    limit: number;
    /** Look up similar facts for each draft (FACT_DUPLICATE_WARNING; default true), within this bound on Postgres. */
    similar?: boolean | undefined;
    duplicateTimeoutMs?: number | undefined;
  },
): Promise<ReviewQueue> {
  const request: FactPageRequest = { order: "oldest", status: "draft", caller, reviewer: true, scanMax: options.scanMax ?? LIST_SCAN_MAX, want: 0 };
  const key = await cursorKey(db);
  const after = openSealedCursor(key, options.cursor, QueueAfter)?.q;
  const [page, counted] = await Promise.all([
    readFactPage<QueueRow>(db, { ...request, from: after, want: options.limit + 1 }, sql.REVIEW_QUEUE, "review_queue_page"),
    countWaiting(db, request, "review_queue_counted"),
  ]);
  const shown = page.rows.slice(0, options.limit);
  const more = page.rows.length > options.limit;
  const nextAfter = more ? Number(shown[shown.length - 1]!.change_seq) : page.stoppedAt ? Number(page.stoppedAt.change_seq) : null;
  // memory_store's duplicate lookup, run for the reviewer (without it a
  // word-for-word copy is confirmed with one keystroke). Advice:
  // a lookup that fails or runs past its bound shows nothing.
  const lookup = (r: QueueRow) => similarFacts(db, caller, r.scope, r.name, r.description, options.duplicateTimeoutMs).catch((): SimilarFact[] => []);
  const similar = options.similar === false ? shown.map((): SimilarFact[] => []) : await Promise.all(shown.map(lookup));
  return {
    items: shown.map((r, i) => ({
      ...toSummary(r),
      similar: similar[i]!,
      body: r.body,
      previous: r.prev_body === null ? null : { description: r.prev_description!, type: r.prev_type!, body: r.prev_body },
      seq: Number(r.change_seq),
    })),
    ...counted,
    nextCursor: nextAfter === null ? null : sealCursor(key, { q: nextAfter }),
    scanCut: !more && page.stoppedAt !== undefined,
  };
}

export interface StaleItem extends FactSummary {
  body: string;
  /** Whole days since the last review (status_at). */
  staleDays: number;
}

export interface StaleQueue {
  /** The longest unreviewed first; a re-confirmation or deprecation takes one off, so the list drains without pages. */
  items: StaleItem[];
  /** Stale facts waiting for this reviewer in all, up to REVIEW_COUNT_CAP (or as far as the count's scan read). */
  count: number;
  countCapped: boolean;
  /** The list stopped at the scan's bound: more may wait among facts reviewed more recently. */
  scanCut: boolean;
  /** After a cut: where the next look goes on (sealed: it may point at a fact the reviewer cannot read). */
  nextCursor: string | null;
}

/** The review queue's position: the change order of the last draft read ("q", unlike memory_list's "s": one list's cursor does not open the other). */
const QueueAfter = z.object({ q: z.number().int().nonnegative() }).strict();

const StaleAfter = z.object({ t: z.string().regex(/^-?\d{1,19}$/), i: z.number().int().positive() }).strict();

/** Confirmed facts nobody has reviewed for staleAfterDays, that this reviewer may confirm again. */
export async function staleQueue(
  db: Queryable,
  caller: Caller,
  options: QueueOptions & { staleAfterDays?: number | undefined; limit: number; cursor?: string | undefined },
): Promise<StaleQueue> {
  const days = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const key = await cursorKey(db);
  const after = openSealedCursor(key, options.cursor, StaleAfter);
  const request: FactPageRequest = { order: "stale", staleAfterDays: days, caller, reviewer: true, scanMax: options.scanMax ?? LIST_SCAN_MAX, want: 0 };
  const [page, counted] = await Promise.all([
    readFactPage<PageRow & { body: string }>(db, { ...request, afterAt: after?.t, afterId: after?.i, want: options.limit }, sql.STALE_QUEUE, "stale_queue_page"),
    countWaiting(db, request, "stale_queue_counted"),
  ]);
  const now = Date.now();
  return {
    // The database chose them as stale (am_fact_stale); the days say how long each has waited.
    items: page.rows.map((r) => {
      const summary = toSummary(r);
      return { ...summary, body: r.body, staleDays: daysSinceReview(summary.statusAt!, now) };
    }),
    ...counted,
    scanCut: page.stoppedAt !== undefined,
    // Past the bound the reviewer must be able to go on: the items shown drain as they are handled, the ones beyond the scan would not.
    nextCursor: page.stoppedAt ? sealCursor(key, { t: page.stoppedAt.status_at_us!, i: Number(page.stoppedAt.scan_id) }) : null,
  };
}
