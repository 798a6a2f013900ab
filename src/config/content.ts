// What agents store: the sizes of facts and graph texts, a graph answer's
// budget, and the facts' hygiene (duplicate warning, staleness).
import * as z from "zod/v4";
import { FACT_DUPLICATE_TIMEOUT_MS, GRAPH_SEARCH_COUNT_MAX, GRAPH_SEARCH_SCAN_MAX, LIST_SCAN_MAX, MAX_CHARS_PER_CALL, RECEIPT_WINDOW_MS } from "../limits.js";
import { SECRET_GUARD_MODES, type SecretGuardMode } from "../secrets/guard.js";
import { boolFrom, intFrom, optionalIntFrom } from "./parse.js";

/** STALE_AFTER_DAYS's default: a confirmed fact nobody has reviewed for this many days is stale (am_fact_stale). */
export const STALE_AFTER_DAYS_DEFAULT = 180;

export const contentEnv = z.object({
  FACT_BODY_MAX_CHARS: intFrom("FACT_BODY_MAX_CHARS", 16_000, 100, 1_000_000),
  FACT_DUPLICATE_WARNING: boolFrom("FACT_DUPLICATE_WARNING", true),
  STALE_AFTER_DAYS: intFrom("STALE_AFTER_DAYS", STALE_AFTER_DAYS_DEFAULT, 1, 36_500),
  // Days a recall receipt (who was served which fact version) is kept; 0 records none (docs/receipts.md).
  RECEIPTS_RETENTION_DAYS: intFrom("RECEIPTS_RETENTION_DAYS", 90, 0, 36_500),
  GRAPH_TEXT_MAX_CHARS: intFrom("GRAPH_TEXT_MAX_CHARS", 4096, 100, 1_000_000),
  // 100,000 characters is about 25,000 tokens: a read leaves an agent most of its
  // context to work in; larger graphs come in further calls (the answer says how).
  GRAPH_ANSWER_MAX_CHARS: intFrom("GRAPH_ANSWER_MAX_CHARS", 100_000, 10_000, 100_000_000),
  // Empty: 1,000,000 on Postgres, 250,000 on the embedded database (one
  // connection: a write holds everyone). The most characters one graph write
  // call carries, all its texts together.
  GRAPH_CALL_MAX_CHARS: optionalIntFrom("GRAPH_CALL_MAX_CHARS", 1000, MAX_CHARS_PER_CALL),
  // refuse: a text an agent writes that holds a credential is refused (docs/secrets.md); off: not scanned.
  SECRET_GUARD: z.enum(SECRET_GUARD_MODES).optional().default("refuse"),
});

/**
 * What agents store, as the service runs with it. The bounds that are design,
 * not settings (graphSearchCountMax, graphSearchScanMax, listScanMax,
 * duplicateTimeoutMs, receiptWindowMs) take their constants from src/limits.ts; they are fields
 * here so that a test can shrink them for one service instead of storing
 * thousands of rows to reach them.
 */
export interface ContentConfig {
  limits: {
    factBodyMaxChars: number;
    graphTextMaxChars: number;
    /** About the most characters of JSON text one graph read answers with (see src/graph/bounds.ts). */
    graphAnswerMaxChars: number;
    /** search_nodes counts matches exactly up to this many; beyond, its total is a lower bound. */
    graphSearchCountMax: number;
    /** search_nodes tests at most this many entities one by one per call; a cursor resumes past them. */
    graphSearchScanMax: number;
    /** The most characters one graph write carries; undefined: by database (src/graph/access.ts). */
    graphCallMaxChars: number | undefined;
    /** memory_list and ledger_list read at most this many facts or events per call; past them the page is cut short with a cursor. */
    listScanMax: number;
  };
  facts: {
    /** memory_store lists facts much like a newly created one (docs/hygiene.md). */
    duplicateWarning: boolean;
    /** Longest the duplicate lookup may run on Postgres; past it the store answers without the warning. */
    duplicateTimeoutMs: number;
    /** A confirmed fact not reviewed for this many days is stale: marked in recall, back in the review queue. */
    staleAfterDays: number;
    /** Days recall receipts and "read by" are kept (docs/receipts.md); 0: none are recorded. */
    receiptsRetentionDays: number;
    /** Repeats of one receipt within this long are one row (src/facts/trust/receipt-writer.ts). */
    receiptWindowMs: number;
  };
  /** SECRET_GUARD: refuse writes that hold a credential, or scan nothing. */
  secretGuard: SecretGuardMode;
}

export function contentConfig(e: z.output<typeof contentEnv>): ContentConfig {
  return {
    limits: {
      factBodyMaxChars: e.FACT_BODY_MAX_CHARS,
      graphTextMaxChars: e.GRAPH_TEXT_MAX_CHARS,
      graphAnswerMaxChars: e.GRAPH_ANSWER_MAX_CHARS,
      graphSearchCountMax: GRAPH_SEARCH_COUNT_MAX,
      graphSearchScanMax: GRAPH_SEARCH_SCAN_MAX,
      graphCallMaxChars: e.GRAPH_CALL_MAX_CHARS,
      listScanMax: LIST_SCAN_MAX,
    },
    facts: {
      duplicateWarning: e.FACT_DUPLICATE_WARNING,
      duplicateTimeoutMs: FACT_DUPLICATE_TIMEOUT_MS,
      staleAfterDays: e.STALE_AFTER_DAYS,
      receiptsRetentionDays: e.RECEIPTS_RETENTION_DAYS,
      receiptWindowMs: RECEIPT_WINDOW_MS,
    },
    secretGuard: e.SECRET_GUARD,
  };
}
