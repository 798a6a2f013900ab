// The review queue as people see it (the web console): the drafts a reviewer
// may confirm, oldest first so nothing waits forever, with the previous version
// of an updated fact for a diff; and the stale facts they may confirm again.
// Same rule as memory_list reviewable: true.
import { type Caller } from "../auth/caller.js";
import { writableScopes } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { type FactSummary, type SummaryRow, toSummary } from "./model.js";
import { type FactType, STALE_AFTER_DAYS_DEFAULT, staleDays } from "./rules.js";
import * as reviewSql from "./review-sql.js";
import { prepared } from "./prepared.js";
import * as sql from "./sql.js";

/** Counting stops here: past it the queue shows "1000+", and the count stays cheap at any size. */
export const REVIEW_COUNT_CAP = 1000;

export interface ReviewItem extends FactSummary {
  body: string;
  /** The version before the current one (for an updated fact), to diff against. */
  previous: { description: string; type: FactType; body: string } | null;
  /** Pass as `after` for the page that follows this item. */
  seq: number;
}

export interface ReviewQueue {
  items: ReviewItem[];
  /** Drafts waiting for this reviewer in all, up to REVIEW_COUNT_CAP. */
  count: number;
  countCapped: boolean;
  /** `after` for the next page; null on the last. */
  nextAfter: number | null;
}

type QueueRow = SummaryRow & {
  body: string;
  change_seq: string | number;
  prev_description: string | null;
  prev_type: FactType | null;
  prev_body: string | null;
};

export async function reviewQueue(db: Queryable, caller: Caller, options: { after?: number | undefined; limit: number }): Promise<ReviewQueue> {
  const writable = writableScopes(caller);
  const [rows, counted] = await Promise.all([
    db.query<QueueRow>(reviewSql.REVIEW_QUEUE, [caller.agentId, writable.all, writable.scopes, options.after ?? null, options.limit + 1], prepared("review_queue")),
    db.query<{ n: number }>(reviewSql.REVIEW_QUEUE_COUNT, [caller.agentId, writable.all, writable.scopes, REVIEW_COUNT_CAP + 1], prepared("review_queue_count")),
  ]);
  const page = rows.rows.slice(0, options.limit);
  const n = counted.rows[0]?.n ?? 0;
  return {
    items: page.map((r) => ({
      ...toSummary(r),
      body: r.body,
      previous: r.prev_body === null ? null : { description: r.prev_description!, type: r.prev_type!, body: r.prev_body },
      seq: Number(r.change_seq),
    })),
    count: Math.min(n, REVIEW_COUNT_CAP),
    countCapped: n > REVIEW_COUNT_CAP,
    nextAfter: rows.rows.length > options.limit ? Number(page[page.length - 1]!.change_seq) : null,
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
  /** Stale facts waiting for this reviewer in all, up to REVIEW_COUNT_CAP. */
  count: number;
  countCapped: boolean;
}

/** Confirmed facts nobody has reviewed for staleAfterDays, that this reviewer may confirm again. */
export async function staleQueue(db: Queryable, caller: Caller, options: { staleAfterDays?: number | undefined; limit: number }): Promise<StaleQueue> {
  const writable = writableScopes(caller);
  const days = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const params = [caller.agentId, writable.all, writable.scopes, days];
  const [rows, counted] = await Promise.all([
    db.query<SummaryRow & { body: string }>(reviewSql.STALE_QUEUE, [...params, options.limit], prepared("stale_queue")),
    db.query<{ n: number }>(reviewSql.STALE_QUEUE_COUNT, [...params, REVIEW_COUNT_CAP + 1], prepared("stale_queue_count")),
  ]);
  const now = Date.now();
  const n = counted.rows[0]?.n ?? 0;
  return {
    items: rows.rows.map((r) => {
      const summary = toSummary(r);
      // The SQL chose it as stale; at least the threshold if the clocks disagree by a moment.
      return { ...summary, body: r.body, staleDays: staleDays(summary, days, now) ?? days };
    }),
    count: Math.min(n, REVIEW_COUNT_CAP),
    countCapped: n > REVIEW_COUNT_CAP,
  };
}
