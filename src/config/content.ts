// What agents store: the sizes of facts and graph texts, a graph answer's
// budget, and the facts' hygiene (duplicate warning, staleness).
import * as z from "zod/v4";
import { LIST_SCAN_MAX_DEFAULT, MAX_CHARS_PER_CALL } from "../limits.js";
import { SECRET_GUARD_MODES, type SecretGuardMode } from "../secrets/guard.js";
import { boolFrom, intFrom, optionalIntFrom } from "./parse.js";

/** STALE_AFTER_DAYS's default: a confirmed fact nobody has reviewed for this many days is stale (am_fact_stale). */
export const STALE_AFTER_DAYS_DEFAULT = 180;

export const contentEnv = z.object({
  FACT_BODY_MAX_CHARS: intFrom("FACT_BODY_MAX_CHARS", 16_000, 100, 1_000_000),
  FACT_DUPLICATE_WARNING: boolFrom("FACT_DUPLICATE_WARNING", true),
  FACT_DUPLICATE_TIMEOUT_MS: intFrom("FACT_DUPLICATE_TIMEOUT_MS", 20, 1, 10_000),
  STALE_AFTER_DAYS: intFrom("STALE_AFTER_DAYS", STALE_AFTER_DAYS_DEFAULT, 1, 36_500),
  // memory_list and ledger_list (and the console's lists) read at most this many
  // facts or events per call, then answer with what they found and a cursor that
  // goes on from there: a filter that matches little no longer reads everything.
  LIST_SCAN_MAX: intFrom("LIST_SCAN_MAX", LIST_SCAN_MAX_DEFAULT, 100, 1_000_000),
  GRAPH_TEXT_MAX_CHARS: intFrom("GRAPH_TEXT_MAX_CHARS", 4096, 100, 1_000_000),
  // 100,000 characters is about 25,000 tokens: a read leaves an agent most of its
  // context to work in; larger graphs come in further calls (the answer says how).
  GRAPH_ANSWER_MAX_CHARS: intFrom("GRAPH_ANSWER_MAX_CHARS", 100_000, 10_000, 100_000_000),
  // search_nodes counts matches exactly up to this many, then says "at least":
  // the work of a search stops growing with its matches (docs/limits.md).
  GRAPH_SEARCH_COUNT_MAX: intFrom("GRAPH_SEARCH_COUNT_MAX", 10_000, 10, 1_000_000),
  // search_nodes tests at most this many entities one by one per call (a common
  // query's walk, or a query of one or two characters), then answers with what
  // it found and a cursor that goes on from there (docs/limits.md).
  GRAPH_SEARCH_SCAN_MAX: intFrom("GRAPH_SEARCH_SCAN_MAX", 10_000, 100, 1_000_000),
  // Empty: 1,000,000 on Postgres, 250,000 on the embedded database (one
  // connection: a write holds everyone). The most characters one graph write
  // call carries, all its texts together.
  GRAPH_CALL_MAX_CHARS: optionalIntFrom("GRAPH_CALL_MAX_CHARS", 1000, MAX_CHARS_PER_CALL),
  // refuse: a text an agent writes that holds a credential is refused (docs/secrets.md); off: not scanned.
  SECRET_GUARD: z.enum(SECRET_GUARD_MODES).optional().default("refuse"),
});

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
      graphSearchCountMax: e.GRAPH_SEARCH_COUNT_MAX,
      graphSearchScanMax: e.GRAPH_SEARCH_SCAN_MAX,
      graphCallMaxChars: e.GRAPH_CALL_MAX_CHARS,
      listScanMax: e.LIST_SCAN_MAX,
    },
    facts: {
      duplicateWarning: e.FACT_DUPLICATE_WARNING,
      duplicateTimeoutMs: e.FACT_DUPLICATE_TIMEOUT_MS,
      staleAfterDays: e.STALE_AFTER_DAYS,
    },
    secretGuard: e.SECRET_GUARD,
  };
}
