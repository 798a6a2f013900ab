// Segments the facts whose CJK words (facts.search_cjk) were made by other
// rules or none: those written before the service split such text, or under
// another ICU dictionary (a Node upgrade). The service runs it at start, in the
// background: a walk over the primary key in short batches, each its own
// statement, so requests interleave with it on either database. Once a walk
// finishes, its rules are recorded and later starts skip it. A fact that gets a
// new version meanwhile keeps the words that version was written with (the
// update names the version it read).
import type { Logger } from "pino";
import type { Database } from "../../db/core/database.js";
import { CJK_WORD_RULES, factWordsParams } from "../cjk-words.js";

const BATCH = 200;

const DONE = `select 1 from fact_cjk_rules_done where rules = $1::text`;

// The ids walk the primary key; the rules are compared on each row read.
const NEXT_BATCH = `
  select id, version, name, description, body, search_cjk <> ''::tsvector as has_words
    from facts
   where id > $1::bigint and search_cjk_rules is distinct from $2::text
   order by id
   limit $3::int`;

// Only the facts that have words or had some are written: a walk over English
// facts reads them and writes nothing.
const WRITE_WORDS = `
  update facts f
     set search_cjk = array_to_tsvector(w.head || w.body), search_cjk_head = array_to_tsvector(w.head),
         search_cjk_rules = $4::text
    from (select $1::bigint as id, $2::text[] as head, $3::text[] as body) w
   where f.id = w.id and f.version = $5::int`;

const RECORD_DONE = `insert into fact_cjk_rules_done (rules) values ($1::text) on conflict (rules) do nothing`;

interface Row {
  id: string;
  version: number;
  name: string;
  description: string;
  body: string;
  has_words: boolean;
}

/** Answers how many facts got new words; stops early (without recording) when `stopping()` says so. */
export async function segmentOlderFacts(db: Database, logger: Logger, stopping: () => boolean): Promise<number> {
  if ((await db.query(DONE, [CJK_WORD_RULES])).rows.length > 0) return 0;
  let after = "0";
  let written = 0;
  for (;;) {
    if (stopping()) return written;
    const rows = (await db.query<Row>(NEXT_BATCH, [after, CJK_WORD_RULES, BATCH])).rows;
    for (const row of rows) {
      const [head, body, rules] = factWordsParams(row.name, row.description, row.body);
      if (head.length === 0 && body.length === 0 && !row.has_words) continue;
      await db.query(WRITE_WORDS, [row.id, head, body, rules, row.version]);
      written += 1;
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!.id;
  }
  await db.query(RECORD_DONE, [CJK_WORD_RULES]);
  if (written > 0) logger.info({ facts: written, rules: CJK_WORD_RULES }, `segmented the Chinese, Japanese and Korean text of ${written} earlier facts`);
  return written;
}
