// How much work one call may ask of the service, in one place (documented in
// docs/limits.md). The database's statement timeout is the last line; these
// refuse an oversized request before any SQL runs, on both backends, with a
// message naming the limit. Sizes that operators tune (text lengths, answer
// size, body size, timeouts) are config keys instead (src/config/index.ts).
//
// The checks are here too, one per kind of limit, so that every capability
// refuses with the same words: checkChars for a text's length (facts, ledger,
// graph) and checkWholeNumber for a numeric argument's range (page sizes, TTLs).
import { invalid } from "./errors.js";
import { charCount } from "./text.js";

/** Items (entities, relations, names, deletions, …) one graph call may carry. */
export const MAX_ITEMS_PER_CALL = 1000;
/** Texts (observations) one graph call may carry across all its items. */
export const MAX_TEXTS_PER_CALL = 10_000;
/**
 * The same on the embedded database, where a write holds the only connection:
 * each text is a row with three index entries, and 10,000 of them held every
 * other agent ~0.8 s; 2,000 take ~0.17 s.
 */
export const EMBEDDED_TEXTS_PER_CALL = 2_000;
/**
 * Characters one graph call may carry across all its texts (names, types,
 * observations, relation ends). Without it the count limits above times
 * GRAPH_TEXT_MAX_CHARS allowed ~40 million characters once MAX_BODY_BYTES is raised.
 */
export const MAX_CHARS_PER_CALL = 1_000_000;
/**
 * Observations and relations one delete_entities call may remove together
 * (relations counted at each of their named ends). What one entity carries is
 * bounded in the database (am_graph_max_observations, am_graph_max_relations),
 * so this is a few entities at their bounds, or many ordinary ones: the delete
 * and its deletion records stay one short statement on the embedded database.
 */
export const MAX_DELETED_ROWS_PER_CALL = 10_000;
/** The default of GRAPH_CALL_MAX_CHARS on the embedded database (src/graph/access.ts). */
export const EMBEDDED_CALL_MAX_CHARS = 250_000;

/** read_graph / search_nodes / read_relations / read_observations: items per answer. */
export const DEFAULT_PAGE_LIMIT = 1000;
export const MAX_PAGE_LIMIT = 5000;
/**
 * The furthest a graph read may skip (offset). Skipping reads every row skipped,
 * so the cost of a page grows with its offset; 100 pages of the largest size
 * reach it. Whole graphs larger than that leave with `agent-memory export`.
 */
export const MAX_OFFSET = 100_000;

/**
 * search_nodes `query`, in characters. No stored name or observation is longer
 * than GRAPH_TEXT_MAX_CHARS, and every character of the query costs index work:
 * a 100,000-character query held the embedded database ~3 s per call.
 */
export const MAX_SEARCH_QUERY_CHARS = 1000;
/**
 * Distinct trigrams of one search (search_nodes' query, or memory_recall's
 * keywords together): each is one lookup in every trigram index searched, and
 * their posting lists are intersected. Counted in TypeScript the way pg_trgm
 * splits text (see countTrigrams), before any SQL runs.
 */
export const MAX_SEARCH_TRIGRAMS = 512;

/**
 * A reason given for a review (memory_promote, the console) or a redaction, in
 * characters: it goes into the history and is shown with the fact. The
 * database's checks hold the same bound (test/code/one-copy.test.ts).
 */
export const REASON_MAX_CHARS = 2000;

/** memory_recall: keywords per call, and characters per keyword. */
export const MAX_KEYWORDS = 10;
export const KEYWORD_MAX_CHARS = 200;

/**
 * Facts or events one memory_list / ledger_list call (or console list, or the
 * activity feed) reads at most: past it the answer is what it found and a cursor
 * that goes on from there, so a filter that matches little never reads everything.
 */
export const LIST_SCAN_MAX = 5_000;

/**
 * search_nodes (and the relation lists and counts) count matches exactly up to
 * this many, then say "at least": the work of a read stops growing with its
 * matches (docs/limits.md).
 */
export const GRAPH_SEARCH_COUNT_MAX = 10_000;
/**
 * Entities search_nodes tests one by one per call at most (and twice as many
 * observations), when the indexes cannot narrow a query (a common word, one or
 * two characters); past it the answer is what it found and a cursor.
 */
export const GRAPH_SEARCH_SCAN_MAX = 10_000;

/**
 * How long memory_store's duplicate lookup may run on Postgres before the fact
 * is answered without the warning: advice never delays a write by more
 * (docs/hygiene.md).
 */
export const FACT_DUPLICATE_TIMEOUT_MS = 20;

/**
 * Requests of one agent that wait for their turn beyond MCP_CONCURRENT_PER_AGENT;
 * further ones are answered 429 with Retry-After (docs/security.md).
 */
export const MCP_QUEUE_PER_AGENT = 64;

/**
 * A connection past HTTP_MAX_CONNECTIONS or HTTP_MAX_CONNECTIONS_PER_ADDRESS gets
 * this long to send its request (answered 503 with Retry-After) before it is
 * closed unanswered (src/http/connection-limits.ts).
 */
export const REFUSED_REQUEST_WAIT_MS = 5_000;

/**
 * The longest tool name or argument key that gets a "did you mean": finding the
 * closest known name compares it with each one, work that grows with its length.
 * A longer one is refused as such, quoting only its start. MCP's tool names are at
 * most 128 characters, this service's own at most 20, its argument keys 12.
 */
export const SUGGESTED_NAME_MAX_CHARS = 128;
/** How much of an unknown tool name or argument key a refusal quotes. */
export const QUOTED_NAME_MAX_CHARS = 40;

/**
 * Recall receipts: the same agent served the same fact version by the same tool
 * again within this long adds to one row's count instead of a row of its own
 * (src/facts/trust/receipt-writer.ts, docs/receipts.md): storage grows with distinct reads.
 */
export const RECEIPT_WINDOW_MS = 5 * 60_000;

/**
 * How deep arrays and objects may nest in one MCP message. This service's
 * deepest message is about six levels (a graph write's entities and their
 * observations); the SDK serializes a message again to serve it, and a deeply
 * nested one (5,000 levels fit in 20 KB) would overflow the stack there.
 */
export const MESSAGE_MAX_NESTING = 64;

/** Page cursors (memory_list, ledger_list) are a few dozen characters; anything longer is not one of ours. */
export const MAX_CURSOR_CHARS = 200;

const MiB = 1024 * 1024;

/**
 * What an import reads from one file (`agent-memory import`: fact files and
 * ledger.jsonl; `agent-memory graph import`): only regular files (src/import-file.ts
 * refuses links, devices and pipes), at most `maxBytes` of them, and, for the
 * files read line by line, lines of at most `maxLineBytes` (a longer line is
 * reported by number, never held in memory). Each is far above what an export of
 * this service's largest records writes, and low enough that reading never runs
 * the process out of memory (a ledger.jsonl linked to /dev/zero, say).
 */
export const IMPORT_FILES = {
  /**
   * Read whole and parsed as YAML (~12x its size in memory: 64 MiB parses in
   * ~0.8 GB). A fact file holds every version: 4,000 versions of a 16,000-character
   * body (the default FACT_BODY_MAX_CHARS), 16 at the largest setting in 4-byte characters.
   */
  factFile: { what: "a fact file", maxBytes: 64 * MiB },
  /**
   * The ledger's own limits (key 200 + 200, evidence 2,048, note 2,000, reason
   * 1,000 characters; src/ledger/validate.ts) make its longest exported line
   * ~35 KB even with every character escaped; the file itself is streamed.
   */
  ledger: { what: "a ledger.jsonl", maxBytes: 16 * 1024 * MiB, maxLineBytes: MiB },
  /**
   * A relation line holds three texts of at most GRAPH_TEXT_MAX_CHARS (its
   * largest setting: 12 MB in 4-byte characters); an entity line holds all its
   * observations: 64 MiB is 16,000 of the default 4,096 characters. A line is
   * parsed whole (~4x its size in memory).
   */
  graph: { what: "a graph file", maxBytes: 16 * 1024 * MiB, maxLineBytes: 64 * MiB },
  /** agents.jsonl and ledger-actions.jsonl: a line per agent or mapped action, each a few hundred bytes. */
  team: { what: "an agents.jsonl or ledger-actions.jsonl", maxBytes: 64 * MiB, maxLineBytes: MiB },
} as const;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Distinct trigrams pg_trgm extracts from `texts` (at most one more than
 * `stopAfter`): each word (a run of letters and digits, lower-cased) padded with
 * two spaces before and one after, as show_trgm does. A LIKE pattern yields at
 * most these, so the count bounds the index work from above.
 */
export function countTrigrams(texts: readonly string[], stopAfter = Infinity): number {
  const seen = new Set<string>();
  for (const text of texts) {
    for (const word of text.toLowerCase().match(WORD) ?? []) {
      const c = [" ", " ", ...word, " "];
      for (let i = 0; i + 3 <= c.length; i++) {
        seen.add(c[i]! + c[i + 1]! + c[i + 2]!);
        if (seen.size > stopAfter) return seen.size;
      }
    }
  }
  return seen.size;
}

/** How a refusal of checkChars reads, besides the field, the count and the limit. */
interface CharLimitWords {
  /** "is N characters long" (the graph's wording) rather than "is N characters". */
  long?: boolean;
  /** The config key that sets the limit, named in brackets after it. */
  key?: string;
  /** What to do instead: a sentence appended to the message. */
  advice?: string;
}

/**
 * The one length check: refuses `text` longer than `max` characters (Unicode
 * code points, as Postgres's char_length counts them) with "<field> is N
 * characters; the limit is M." and the words given.
 */
export function checkChars(field: string, text: string, max: number, words: CharLimitWords = {}): void {
  // UTF-16 length bounds the character count from above: only long strings need counting.
  if (text.length <= max) return;
  const n = charCount(text);
  if (n <= max) return;
  const key = words.key ? ` (${words.key})` : "";
  const advice = words.advice ? ` ${words.advice}` : "";
  throw invalid(`${field} is ${n} characters${words.long ? " long" : ""}; the limit is ${max}${key}.${advice}`);
}

/** The one range check of a numeric argument: `value` (the default when omitted) must be a whole number from min to max. */
export function checkWholeNumber(field: string, value: number | undefined, def: number, min: number, max: number): number {
  const n = value ?? def;
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(`${field} must be a whole number from ${min} to ${max}, got ${value}.`);
  return n;
}

/** Facts memory_recall answers with by default, and at most. */
export const RECALL_DEFAULT_LIMIT = 10;
export const RECALL_MAX_LIMIT = 50;
/** Facts memory_list answers with by default, and at most. */
export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

/** Values one completion answer holds at most (MCP's limit); a completer may return one more to say that more exist. */
export const COMPLETION_MAX_VALUES = 100;

/** The ledger's sizes and ranges: keys, evidence, notes, reasons, claim lifetimes, pages. */
export const LEDGER_LIMITS = {
  keyMaxChars: 200,
  evidenceMaxChars: 2048,
  noteMaxChars: 2000,
  reasonMaxChars: 1000,
  ttlMinSeconds: 10,
  ttlMaxSeconds: 86_400,
  ttlDefaultSeconds: 600,
  listDefault: 20,
  listMax: 200,
} as const;

/**
 * Recall by meaning (src/facts/embeddings/): facts embedded per request to the
 * endpoint; the longest one such request may take (a batch, off the request
 * path) and the longest wait between retries after failures (doubling from a
 * second); how often the queue looks for facts written elsewhere (another
 * worker, an import, the CLI: its own writes wake it at once); and the most
 * numbers one vector may hold (the largest models give 4,096).
 */
export const EMBEDDINGS_LIMITS = {
  batchFacts: 32,
  requestTimeoutMs: 30_000,
  retryMaxMs: 5 * 60_000,
  pollMs: 60_000,
  maxDims: 8_192,
} as const;
