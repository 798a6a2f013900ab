// memory_list: a page of facts, or the caller's review queue, read through a
// bounded scan (am_fact_page). Each call reads at most `scanMax` facts in the
// order of one index and filters them; when it has read that many without
// filling its page, it answers with what it found, `scanCut`, and a cursor that
// resumes where the scan stopped. Before the bound, a filter that matched little
// (a type and an author who wrote nothing: 813 ms at 100,000 facts; the review
// queue of an agent with 100,000 drafts of its own: 162-244 ms) read the whole
// table in one call.
//
// The review queue has two parts, each in the order of its own index: drafts by
// someone else (most recently changed first), then stale confirmed facts (the
// longest unreviewed first). In one order (change_seq) the stale part would have
// to read every confirmed fact to find the few that are stale.
import * as z from "zod/v4";
import type { Caller } from "../../auth/caller.js";
import { readableScopes, validateAgentName, writableScopes } from "../../auth/scopes.js";
import type { Queryable } from "../../db/core/database.js";
import { invalid } from "../../errors.js";
import { checkWholeNumber, LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, LIST_SCAN_MAX } from "../../limits.js";
import { openSealedCursor, sealCursor } from "../../paging.js";
import { cursorKey } from "../../db/sql/cursor-key.js";
import { type FactSummary, type SummaryRow, toSummary } from "../model.js";
import { prepared } from "../prepared.js";
import { optionalReadableScope } from "./get.js";
import { type FactStatus, type FactType, STALE_AFTER_DAYS_DEFAULT } from "../rules.js";
import * as sql from "../sql.js";


export interface ListInput {
  status?: FactStatus | undefined;
  type?: FactType | undefined;
  scope?: string | undefined;
  author?: string | undefined;
  reviewable?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

interface ListOptions {
  staleAfterDays?: number | undefined;
  /** Facts one call reads at most before it answers with what it found. */
  scanMax?: number | undefined;
}

export interface ListResult {
  facts: Array<FactSummary & { stale: boolean }>;
  /** Pass back as cursor for the next page; null on the last page. */
  nextCursor: string | null;
  /** True when the page stopped at the call's scan bound, not at the end of the facts: more may follow. */
  scanCut: boolean;
}

// Cursors: { s } resumes a change_seq scan (a plain list, or the drafts part of
// the review queue); { p: "stale" } starts the stale part, with { t, i } the
// review time (microseconds since 1970) and id to go on after.
const SeqCursor = z.object({ s: z.number().int().positive() }).strict();
const StaleCursor = z.object({ p: z.literal("stale"), t: z.string().regex(/^-?\d{1,19}$/).optional(), i: z.number().int().positive().optional() }).strict();
const ListCursor = z.union([SeqCursor, StaleCursor]);
type StaleKey = z.infer<typeof StaleCursor>;

export type PageRow = SummaryRow & {
  /** Whether the fact is stale (am_fact_stale, with the request's staleAfterDays). */
  stale: boolean;
  /** The fact's id as the scan read it (also on a `last` row that did not pass the filters). */
  scan_id: string | number;
  change_seq: string | number;
  status_at_us: string | null;
  kept: boolean;
  last: boolean;
};

/** What one bounded scan (am_fact_page) reads. */
export interface FactPageRequest {
  order: "newest" | "oldest" | "stale";
  status?: FactStatus | undefined;
  /** The change_seq to start after ("newest", "oldest"). */
  from?: number | undefined;
  /** Stale after this many days (default STALE_AFTER_DAYS_DEFAULT): each row's `stale`, and the "stale" order; with the review time (MICROS) and id to start after ("stale"). */
  staleAfterDays?: number | undefined;
  afterAt?: string | undefined;
  afterId?: number | undefined;
  /** Facts read at most, and facts wanted. */
  scanMax: number;
  want: number;
  caller: Caller;
  type?: FactType | undefined;
  scope?: string | undefined;
  author?: string | undefined;
  /** The review queue: facts by someone else, in scopes the caller may write. */
  reviewer?: boolean | undefined;
}

interface FactPage<R> {
  /** The facts that passed the filters, in the scan's order, up to `want`. */
  rows: R[];
  /** The scan read its bound (this is the last fact it read) and did not find `want` facts before it. */
  stoppedAt: (R & { kept: boolean }) | undefined;
}

/** am_fact_page's parameters ($1-$16 of sql.FACT_PAGE and sql.FACT_PAGE_COUNT). */
export function factPageParams(request: FactPageRequest): unknown[] {
  const readable = readableScopes(request.caller);
  const writable = request.reviewer ? writableScopes(request.caller) : undefined;
  return [
    request.order,
    request.status ?? null,
    request.from ?? null,
    request.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT,
    request.afterAt ?? null,
    request.afterId ?? null,
    request.scanMax,
    request.want,
    readable.all,
    readable.scopes,
    request.type ?? null,
    request.scope ?? null,
    request.author ?? null,
    request.reviewer ? request.caller.agentId : null,
    writable ? writable.all : null,
    writable ? writable.scopes : [],
  ];
}

/** One bounded scan: the facts of a page, and where the scan stopped when it read all it may. */
export async function readFactPage<R extends PageRow>(db: Queryable, request: FactPageRequest, statement = sql.LIST_FACTS, name = "list_page"): Promise<FactPage<R>> {
  const rows = (await db.query<R>(statement, factPageParams(request), prepared(name))).rows;
  const kept = rows.filter((r) => r.kept).slice(0, request.want);
  const last = rows.find((r) => r.last);
  return { rows: kept, stoppedAt: last && kept.length < request.want ? last : undefined };
}

export async function listFacts(db: Queryable, caller: Caller, input: ListInput, options: ListOptions = {}): Promise<ListResult> {
  const staleAfter = options.staleAfterDays ?? STALE_AFTER_DAYS_DEFAULT;
  const scanMax = options.scanMax ?? LIST_SCAN_MAX;
  if (input.reviewable && input.status === "deprecated") {
    throw invalid(
      `reviewable: true lists drafts and stale confirmed facts waiting for review; omit status, or pass "draft" or "confirmed" (got "${input.status}").`,
    );
  }
  const scope = optionalReadableScope(caller, input.scope);
  const author = input.author === undefined ? undefined : validateAgentName(input.author);
  const limit = checkWholeNumber("limit", input.limit, LIST_DEFAULT_LIMIT, 1, LIST_MAX_LIMIT);
  // Sealed (src/db/sql/cursor-key.ts): a cursor may point at the last fact a scan read, in a scope the caller cannot read.
  const key = await cursorKey(db);
  const encodeCursor = (payload: Record<string, string | number>) => sealCursor(key, payload);
  const cursor = openSealedCursor(key, input.cursor, ListCursor);
  if (cursor && "p" in cursor && !input.reviewable) {
    throw invalid("This cursor comes from the review queue: pass reviewable: true and the same filters with it, or omit the cursor.");
  }
  const shape = (rows: PageRow[]) => rows.map((row) => ({ ...toSummary(row), stale: row.stale }));
  const filters = { caller, type: input.type, scope, author, scanMax, reviewer: input.reviewable ?? false, staleAfterDays: staleAfter };

  // One fact more than shown tells whether another page exists.
  const fromSeq = cursor && "s" in cursor ? cursor.s : undefined;
  if (!input.reviewable) {
    const page = await readFactPage(db, { ...filters, order: "newest", status: input.status, from: fromSeq, want: limit + 1 });
    return { facts: shape(page.rows.slice(0, limit)), ...seqNext(page, limit, encodeCursor) };
  }

  const facts: PageRow[] = [];
  const inStale = cursor !== undefined && "p" in cursor;
  if (!inStale && input.status !== "confirmed") {
    // Oldest first, as memory_review and the console's queue: the draft waiting longest is reviewed first.
    const page = await readFactPage(db, { ...filters, order: "oldest", status: "draft", from: fromSeq, want: limit + 1 }, sql.LIST_FACTS, "list_page");
    const next = seqNext(page, limit, encodeCursor);
    // Drafts go on (another page, or the scan stopped at its bound): the stale part waits for them.
    if (next.nextCursor !== null || input.status === "draft") return { facts: shape(page.rows.slice(0, limit)), ...next };
    facts.push(...page.rows);
  }
  // The stale part, from its start or from the cursor; after a full page of drafts, one fact tells whether it holds anything.
  const want = limit - facts.length;
  const from: StaleKey = inStale ? cursor : { p: "stale" };
  const page = await readFactPage(db, { ...filters, order: "stale", staleAfterDays: staleAfter, afterAt: from.t, afterId: from.i, want: want + 1 });
  const shown = page.rows.slice(0, want);
  facts.push(...shown);
  let nextCursor: string | null = null;
  if (page.rows.length > want) {
    const last = shown[shown.length - 1];
    // A full page: go on after its last fact (or, when drafts filled it, from the stale part's start).
    nextCursor = encodeCursor(last ? { p: "stale", t: last.status_at_us!, i: Number(last.scan_id) } : { p: "stale" });
  } else if (page.stoppedAt) {
    nextCursor = encodeCursor({ p: "stale", t: page.stoppedAt.status_at_us!, i: Number(page.stoppedAt.scan_id) });
  }
  // A page full of drafts whose one-fact look into the stale part stopped at the bound is not "cut": it is full.
  return { facts: shape(facts), nextCursor, scanCut: page.rows.length <= want && page.stoppedAt !== undefined && facts.length < limit };
}

/** The next cursor of a change_seq scan: after the page's last fact when there is more, after the scan's last fact when it stopped at its bound. */
function seqNext(
  page: FactPage<PageRow>,
  limit: number,
  encodeCursor: (payload: Record<string, string | number>) => string,
): { nextCursor: string | null; scanCut: boolean } {
  if (page.rows.length > limit) return { nextCursor: encodeCursor({ s: Number(page.rows[limit - 1]!.change_seq) }), scanCut: false };
  if (page.stoppedAt) return { nextCursor: encodeCursor({ s: Number(page.stoppedAt.change_seq) }), scanCut: true };
  return { nextCursor: null, scanCut: false };
}
